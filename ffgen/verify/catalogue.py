"""The rule catalogue, as data: every rule ID verify can report, with its rationale.

IDs are stable: FF0xx = verify itself, FF1xx = registries and re-exports, FF2xx = contracts and
paradigm, FF3xx = trainer hooks and inheritance, FF4xx = argument classes, FF5xx = example YAMLs,
FF6xx = roles and checkpoint children, FF7xx = the new-algorithm guide's common
failures. Never renumber a rule; retire it instead.
"""

from __future__ import annotations

import dataclasses

from ffgen.verify.model import ERROR, WARNING, Finding


@dataclasses.dataclass(frozen=True, slots=True)
class Rule:
    id: str
    title: str
    severity: str
    rationale: str
    fix: str


# Trainer-to-trainer inheritance that Flow-Factory sanctions: child key -> allowed parent key.
# Everything else inherits BaseTrainer directly and shares behaviour through helpers.
SANCTIONED_EXTENSIONS: dict[str, str] = {
    "grpo-guard": "grpo",
    "dppo": "grpo",
    "tdm-r1": "tdm",
}

CONTRACT_CONSTANTS: dict[str, tuple[str, str]] = {
    "ONLINE_EXECUTION_CONTRACT": ("generation", "runtime_reward"),
    "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT": ("generation", "none"),
    "OFFLINE_EXECUTION_CONTRACT": ("dataset", "none"),
}
PARADIGMS = ("coupled", "decoupled", "distillation")
SDE_DYNAMICS = ("Flow-SDE", "Dance-SDE", "CPS")
# Optimizer kinds when the checkout has no readable optimizer registry; `optimizer:` defaults to
# the first (OptimizerArguments.optimizer = "adamw").
OPTIMIZER_KINDS = ("adamw", "muon")
DEFAULT_OPTIMIZER = "adamw"
DEFAULT_OPTIMIZER_NAME = "default"  # OptimizerArguments.name
RESERVED_RUNTIME_CHILDREN = ("adapter_ema", "adapter_reference", "multirole")

_R = Rule
RULES: tuple[Rule, ...] = (
    _R("FF001", "Python file does not parse", ERROR,
       "verify reads every module it follows with the ast module; a syntax error hides the "
       "declarations every other rule needs, and the checkout would not import either.",
       "fix the syntax error at the reported line"),
    _R("FF002", "YAML file does not parse", ERROR,
       "Example configs are loaded by Arguments.from_dict; one that does not parse cannot be "
       "checked or run.",
       "fix the YAML syntax at the reported line"),
    _R("FF003", "accepted exception matches nothing", WARNING,
       "An entry in .ffgen-verify.yaml that no longer suppresses any finding is stale and would "
       "silently hide a future regression of the same rule.",
       "delete the entry from .ffgen-verify.yaml"),
    _R("FF101", "registries disagree on keys", ERROR,
       "load_trainer resolves the args class and the trainer class from two registries by the "
       "same key; Flow-Factory's tests assert that both key sets are equal.",
       "add the missing key to the other registry (or remove it from both)"),
    _R("FF102", "registry key is not lowercase", ERROR,
       "get_trainer_class and get_training_args_class look keys up with identifier.lower(), so "
       "a key with uppercase letters can never be selected by trainer_type.",
       "rename the key to lowercase words joined by hyphens (my-algo)"),
    _R("FF103", "trainer path does not resolve", ERROR,
       "The trainer registry holds lazy dotted paths; a path whose module file or class does not "
       "exist fails only when someone selects the algorithm.",
       "point the entry at flow_factory.trainers.<category>.<module>.<Class> that exists"),
    _R("FF104", "args class not imported in the args registry", ERROR,
       "_TRAINING_ARGS_REGISTRY maps keys to classes imported at the top of _registry.py; a name "
       "that is not imported there is a NameError at import time.",
       "add `from .<module> import <Class>` to hparams/training_args/_registry.py"),
    _R("FF105", "args class not re-exported from training_args", ERROR,
       "hparams/training_args/__init__.py imports every algorithm args class and lists it in "
       "__all__; the public API and Flow-Factory's tests rely on that.",
       "import the class in hparams/training_args/__init__.py and add it to __all__"),
    _R("FF106", "args class not re-exported from hparams", ERROR,
       "hparams/__init__.py re-exports every args class from .training_args and lists it in "
       "__all__, so `from flow_factory.hparams import XTrainingArguments` works.",
       "add the class to the `from .training_args import (...)` block and to __all__"),
    _R("FF107", "base class does not resolve", ERROR,
       "An args or trainer class names a base that is neither defined nor imported (or whose "
       "in-package import points nowhere); the module fails at import, and verify cannot follow "
       "inheritance to the contract, paradigm or hooks.",
       "import the base class (e.g. `from ..abc import BaseTrainer`) or fix its module path"),
    _R("FF108", "duplicate key in a registry", ERROR,
       "A registry is a dict literal, and Python keeps the last of two entries with the same key "
       "without a word: the first trainer (or args class) can never be selected, and "
       "trainer_type silently runs the other one.",
       "keep one entry per key: rename or delete the other one in the registry"),
    _R("FF201", "execution contracts differ", ERROR,
       "BaseTrainer.validate_training_arguments_contract refuses a trainer whose class-level "
       "execution_contract differs from its args class's; inheritance and base defaults count "
       "(a class that declares nothing inherits its base's contract).",
       "declare the same contract constant on the args class and on the trainer class"),
    _R("FF202", "execution contract is not a named constant", ERROR,
       "Only the three constants ONLINE_EXECUTION_CONTRACT, ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT "
       "and OFFLINE_EXECUTION_CONTRACT are valid compositions; constructing ExecutionContract "
       "(...) by hand can produce the unsupported dataset + runtime_reward composition.",
       "assign one of the three constants from flow_factory.contracts.execution"),
    _R("FF203", "trainer declares no paradigm", ERROR,
       "BaseTrainer.paradigm is None; every trainer states whether its objective is coupled, "
       "decoupled or distillation, which selects the dynamics check.",
       "add `paradigm: ClassVar[Literal['decoupled']] = 'decoupled'` (or coupled/distillation)"),
    _R("FF204", "coupled trainer without generation + runtime_reward", ERROR,
       "A coupled objective replays the sampler's transition densities against runtime rewards; "
       "it needs generated acquisition and runtime feedback.",
       "use ONLINE_EXECUTION_CONTRACT or change the paradigm"),
    _R("FF301", "trainer overrides start()", ERROR,
       "BaseTrainer.start() owns seeding, acquisition dispatch, save/eval boundaries, progress "
       "and EMA cadence; overriding it desynchronises checkpoints and resume.",
       "delete start() and implement the sample/optimize (or optimize_batch) hooks"),
    _R("FF302", "trainer advances progress by hand", ERROR,
       "Progress counters (step, epoch, data_epoch, cycle_index, progress) advance only inside "
       "the shared loop and _apply_optimizer_step, which clips, steps, logs and advances step. "
       "Advancing step in a trainer that also calls _apply_optimizer_step counts each optimizer "
       "step twice, advancing it with no optimizer step counts steps that never ran, and writing "
       "epoch/data_epoch desynchronises the loop and exact resume: errors. Advancing step right "
       "after the trainer's own optimizer.step() keeps the count (DiffusionOPD does this) and is "
       "a warning: _apply_optimizer_step is the preferred helper.",
       "remove the assignment; call _apply_optimizer_step when accelerator.sync_gradients"),
    _R("FF303", "generation trainer missing optimize/sample", ERROR,
       "With generated acquisition the loop calls sample() then optimize(samples); "
       "_validate_execution_hooks raises TypeError when optimize is not overridden.",
       "implement sample() (prefer generate_samples) and optimize(samples)"),
    _R("FF304", "dataset trainer hooks wrong", ERROR,
       "With dataset acquisition the loop calls optimize_batch(batch) per loader batch; "
       "optimize() and sample() are never called and signal a misclassified trainer.",
       "implement optimize_batch(batch) and remove optimize()/sample()"),
    _R("FF305", "unsanctioned trainer-to-trainer inheritance", ERROR,
       "New trainers inherit BaseTrainer directly and share behaviour through helpers; the only "
       "sanctioned strict extensions are GRPO-Guard/DPPO from GRPO and TDM-R1 from TDM (the "
       "checkout's ff-new-algorithm skill says which), and a new strict extension of a "
       "sanctioned parent (GRPO, TDM) whose docstring documents it: that it is a strict "
       "extension of the parent and why BaseTrainer plus shared helpers is not enough "
       "(`ffgen new NAME --extends KEY` writes one).",
       "inherit BaseTrainer and move shared code into a helper, document a strict extension of a "
       "sanctioned parent, or record an accepted exception"),
    _R("FF401", "args base does not match acquisition", ERROR,
       "Dataset algorithms inherit OfflineFlowMatchingTrainingArguments (finite-loader cadence, "
       "explicit accumulation, offline flow-matching fields); generation algorithms must not.",
       "change the args base class to match the contract's acquisition"),
    _R("FF402", "trainer_type default is not the registry key", ERROR,
       "Arguments.from_dict selects the args class by train.trainer_type and the class checks "
       "its own trainer_type; a default or Literal that differs from the key breaks selection.",
       "set `trainer_type: Literal['<key>'] = field(default='<key>')` listing every key"),
    _R("FF501", "example trainer_type not registered", ERROR,
       "An example whose train.trainer_type is not a registry key fails in Arguments.from_dict.",
       "use a registered key in train.trainer_type"),
    _R("FF502", "coupled algorithm example without SDE dynamics", ERROR,
       "_validate_paradigm_dynamics rejects a coupled trainer unless every component uses "
       "Flow-SDE, Dance-SDE or CPS.",
       "set scheduler.dynamics_type to Flow-SDE (or Dance-SDE / CPS)"),
    _R("FF503", "dataset example settings", ERROR,
       "Dataset acquisition needs unit train source weights, data.sampler_type: auto, "
       "train.max_epochs and an explicit integer gradient_accumulation_steps.",
       "set weight: 1, sampler_type: auto, max_epochs and gradient_accumulation_steps: <int>"),
    _R("FF504", "runtime rewards without runtime_reward feedback", ERROR,
       "Arguments.from_dict refuses training `rewards:` for a feedback-none contract; use "
       "eval_rewards for evaluation.",
       "remove `rewards:` (keep eval_rewards) or use a runtime_reward contract"),
    _R("FF505", "optimizers entries", ERROR,
       "`optimizers:` (a list, or one mapping) has one entry per trainable role, each with "
       "max_grad_norm; an entry without `name:` is the `default` role and one without "
       "`optimizer:` is adamw (OptimizerArguments' defaults), but an `optimizer:` value that "
       "is not a registered optimizer fails at startup, and a missing role falls back silently.",
       "give each trainable role one entry with name and max_grad_norm; set optimizer (if at "
       "all) to a registered kind such as adamw or muon"),
    _R("FF506", "execution_contract configured in YAML", ERROR,
       "The contract is selected by trainer_type; TrainingArguments.from_dict raises ValueError "
       "when train.execution_contract is configured.",
       "delete execution_contract from the config"),
    _R("FF507", "example without optimizers list", WARNING,
       "Without `optimizers:` one AdamW entry is synthesised from the flat train fields; "
       "examples should show the explicit entry.",
       "add `optimizers: [{name: default, optimizer: adamw, max_grad_norm: 1.0, ...}]`"),
    _R("FF601", "multi-role algorithm without declared roles", ERROR,
       "Multi-role trainers need required_trainable_roles (two or more, base role first) so "
       "variants are declared before prepare and a role update plan can be checked.",
       "add a required_trainable_roles property returning the role tuple"),
    _R("FF602", "role defaults or plan do not match roles", ERROR,
       "Each trainable role needs a default optimizer entry (*_DEFAULT_OPTIMIZERS) and the role "
       "update plan must name exactly the required roles.",
       "make *_DEFAULT_OPTIMIZERS and role_update_plan() name each required role once"),
    _R("FF603", "algorithm snapshot without a checkpoint runtime child", ERROR,
       "Exact resume saves the framework's children (adapter_ema, adapter_reference, and "
       "multirole whenever more than one trainable role is required, which holds every role "
       "and its variant snapshots) plus the children the algorithm declares. A named-parameter "
       "snapshot (add_named_parameters) is never framework-covered, and a variant snapshot or "
       "component variant is covered only by the multirole child; one that is not declared in "
       "runtime_child_names or _algorithm_runtime_child_names() makes checkpointing raise.",
       "add the snapshot's name to runtime_child_names (or return it from "
       "_algorithm_runtime_child_names()) and register it in _initialize_snapshots"),
    _R("FF605", "Muon where it cannot run", ERROR,
       "Muon needs torch.optim.Muon (PyTorch 2.9 or later) and runs on DDP or FSDP2 only: "
       "DeepSpeed rebuilds its optimizer around the CompositeOptimizer Muon needs, and FSDP1 "
       "hands Muon flattened 1-D gradients, failing at the first step.",
       "use optimizer: adamw for that role, or DDP / FSDP2 (fsdp_version: 2) and torch >= 2.9"),
    _R("FF606", "multi-role algorithm on DeepSpeed ZeRO-3", ERROR,
       "Several live roles share one optimizer whose groups are stepped one role at a time; "
       "Flow-Factory supports that on DeepSpeed only with ZeRO-1/2 (ZeRO-3 shards the "
       "parameters the role isolation needs).",
       "select a ZeRO-1/2 DeepSpeed config (zero_stage: 1 or 2), FSDP2 or DDP"),
    _R("FF607", "multi-role algorithm on FSDP2 without use_orig_params", ERROR,
       "With several roles the optimizer groups must reference the prepared root's original "
       "parameters; FSDP2 multi-role training refuses use_orig_params=False.",
       "set fsdp_use_orig_params: true in the accelerate config"),
    _R("FF608", "role without an optimizers entry", ERROR,
       "An explicit `optimizers:` list of a multi-role algorithm must configure every required "
       "trainable role; the one left out would run on a silent default or be refused at startup.",
       "add `- name: <role>` (with max_grad_norm) for the role, or drop the list to use the "
       "algorithm's *_DEFAULT_OPTIMIZERS"),
    _R("FF609", "optimizers entry naming no role", ERROR,
       "Optimizer entries are matched to roles by name; an entry whose name is no required "
       "trainable role configures nothing (a typo leaves its role on another setting).",
       "rename the entry to a required role or remove it"),
    _R("FF604", "reserved or undeclared runtime child", ERROR,
       "adapter_ema, adapter_reference and multirole are declared by the framework; a child "
       "registered under a name not in runtime_child_names makes checkpointing raise.",
       "rename the child, or add the registered name to runtime_child_names"),
    # FF701-FF704: the guide's common failures of collection, advantages and offline batches.
    _R("FF701", "sample() bypasses the collection path", ERROR,
       "generate_samples() and sample_batch() own rollout mode (adapter.rollout()), source and "
       "metadata propagation onto every sample (_inject_batch_metadata), reward buffering "
       "(reward_buffer.add_samples), the rollout acceleration context and loader iteration; "
       "every built-in collects through them or through shared helpers built on sample_batch "
       "(DMD2, TDM, TDM-R1: generate_one_rollout_batch). A sample() path (sample and the own "
       "methods it calls, own generate_samples/sample_batch overrides) that calls "
       "adapter.inference() or the pipeline directly loses what it does not redo: an error "
       "when one of those calls appears nowhere on the path, a warning when the trainer redoes "
       "all of them by hand (correct today, but off the framework's path). An own sample_batch "
       "override is the documented seam for a different inference call and passes while it "
       "keeps metadata injection and reward buffering.",
       "return self.generate_samples(reward_buffer=..., ...) from sample() (or call "
       "self.sample_batch(batch, ...) per batch); put a different inference call in a "
       "sample_batch override"),
    _R("FF702", "advantage gather/normalisation reimplemented", ERROR,
       "BaseTrainer.prepare_feedback finalizes the reward buffer and compute_advantages hands "
       "the rewards to the AdvantageProcessor, which gathers them across processes, aggregates "
       "them, normalises per group (or by the global std), logs and scatters each rank's share "
       "back onto its samples. Online DPO overrides compute_advantages and still delegates; "
       "NFT, AWM, GRPO, CRD and DGPO transform batch['advantage'] (CRD gathers advantages for "
       "its centred loss), never rewards. verify follows values from the reward buffer's "
       "finalize(), the reward processor or models, a ['rewards'] lookup and a "
       "compute_advantages `rewards` parameter through each method. Storing advantages derived "
       "from them, or a compute_advantages override that never calls the processor, is certain: "
       "an error. Gathering rewards across processes, or taking their std or subtracting their "
       "mean, is an error in a trainer that never reaches the processor and a warning in one "
       "that does (there it may only feed a log).",
       "finalize the rewards and call self.compute_advantages(samples, rewards, "
       "store_to_samples=True) (or keep the base prepare_feedback); read batch['advantage'] in "
       "the loss"),
    _R("FF703", "encoded outputs cached or condition prepared twice per batch", ERROR,
       "Offline optimization caches input conditions only and encodes outputs on demand "
       "(adapter.encode_output_state in every optimize_batch), and calls "
       "adapter.prepare_condition_state() once per batch, every preference arm sharing the one "
       "prepared condition, as SFT and offline DPO do. encode_output_state results kept in a "
       "trainer container (dict, list, set, an lru_cache'd method), or in an attribute that is "
       "assigned only when a check of the same attribute says it is empty, are reused on later "
       "batches and epochs as stale targets: an error. A plain attribute holding the current "
       "batch's outputs is a warning (only a later read would make it a cache). "
       "prepare_condition_state() reached twice on one path through optimize_batch (directly or "
       "through own helpers), or inside a loop, redraws the condition per candidate: an error.",
       "encode outputs inside optimize_batch with adapter.encode_output_state(media, prepared) "
       "each batch, and call adapter.prepare_condition_state(condition) once per batch, "
       "passing the result to every arm"),
    _R("FF704", "optimizer stepped outside the accumulation window", ERROR,
       "A dataset trainer gets one optimize_batch() call per loader batch; SFT and offline DPO "
       "backward inside accumulate_gradients() and call _apply_optimizer_step only under `if "
       "self.accelerator.sync_gradients:`, so every optimizer step covers exactly "
       "gradient_accumulation_steps microbatches (the guide: explicit positive accumulation, "
       "no partial-window flush). An optimizer step on optimize_batch's path (own helpers "
       "included) that is not under that check steps and counts every microbatch; a step "
       "reached from _after_acquisition_cycle flushes the open window at the end of a data "
       "epoch; assigning sync_gradients forces a step on a partial window; a test like "
       "`sync_gradients or <end of data>` is no guard. Each is certain from the code: errors.",
       "step only in optimize_batch under `if self.accelerator.sync_gradients:` "
       "(self._loss_info = self._apply_optimizer_step(self._loss_info)), never at the end of an "
       "epoch"),
    # FF705-FF708: the guide's common failures of setup, CFG, roles and arguments.
    _R("FF705", "duplicated initialization", ERROR,
       "BaseTrainer.__init__ runs _initialization() once, in an order exact resume depends on: "
       "paradigm dynamics, dataloader, variant declaration, optimizer, one prepare of the model "
       "bundle, inference components, acceleration, rewards. No built-in trainer overrides it; "
       "each uses the hooks it calls. An override that does not call super() replaces that "
       "setup and calling it again builds a second optimizer and prepare: errors. An override "
       "that calls super() keeps the setup but moves algorithm code into the base's phase: a "
       "warning, since the evidence is only that the hooks were bypassed.",
       "delete the override (or the call) and move the extra setup into "
       "_build_train_dataloader, _declare_model_variants, _initialize_snapshots or "
       "_init_reward_model"),
    _R("FF706", "rollout CFG in offline flow matching", ERROR,
       "Finite-data velocity matching is conditioned by the adapter's "
       "offline_training_forward_overrides (guidance_scale 1.0 for conventional CFG adapters; "
       "adapters with learned guidance replace the whole mapping), independent of the sampling "
       "config. forward_velocity_state fills the forward kwargs from training_args, whose "
       "guidance_scale is the rollout one, and lets explicit overrides win, so every forward of "
       "a dataset trainer spreads **adapter.offline_training_forward_overrides, as SFT and "
       "offline DPO do for policy and reference. A forward without them, or one passing "
       "training_args.guidance_scale, trains with rollout CFG: an error. A direct "
       "forward_state() without them, or a hand-set guidance_scale, is a warning (the kwargs "
       "reaching the adapter are not known statically). Separately, an args field that scales "
       "CFG for an optimize/reference branch (real_guidance_scale, kl_cfg, kl_guidance_scale) "
       "needs get_preprocess_guidance_scale() overridden, as DMD2, CRD, DGPO, DPPO and "
       "DiffusionOPD do, so negative conditions get encoded when rollout CFG is weaker: a "
       "warning, since only the field name says it is such a scale.",
       "spread **self.adapter.offline_training_forward_overrides into every offline forward; "
       "override get_preprocess_guidance_scale() for a stronger branch CFG"),
    _R("FF707", "frozen or time-shifted copy as a live trainable role", ERROR,
       "A component variant (a required trainable role, or a declare_component_variants() "
       "name) is a live copy with its own gradients, optimizer group and checkpoint state. A "
       "frozen reference goes through use_ref_parameters(); an old, EMA or sampling copy is a "
       "named-parameter or variant snapshot. DMD2 keeps its reference score out of its roles "
       "(generator, fake), TDM-R1's slow surrogate is a variant snapshot. A role whose default "
       "optimizer has learning_rate 0, or whose parameters the trainer stops requiring grad "
       "for, never trains: an error. A role named as such a copy (ref, reference, ema, teacher, "
       "old, frozen, slow, sampling, ...) is a warning: the name is the only evidence.",
       "drop the role and keep the copy as a snapshot (use_ref_parameters, "
       "add_named_parameters, declare_variant_snapshot)"),
    _R("FF708", "trainer reads an undefined argument", ERROR,
       "self.training_args is an instance of the args class registered under the same key. A "
       "trainer method that runs (its own classes, not the framework's) reading "
       "training_args.<name> (directly, through self.config, a local alias or getattr without "
       "a default) that the class and its bases do not define as a field, class attribute, "
       "property, method or attribute set in a method, raises AttributeError at that line: "
       "unknown keys of the YAML land in extra_kwargs, not on the instance. Guarded reads "
       "(getattr default, hasattr, except AttributeError, an isinstance branch) and classes "
       "with an unresolved base or a __getattr__ are not flagged.",
       "add the field to the args class (default, help, validation) or read a defined field"),
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}


def rule(rule_id: str) -> Rule:
    return BY_ID[rule_id]


def finding(
    rule_id: str,
    path: str,
    line: int,
    algorithm: str | None,
    message: str,
    fix: str = "",
    *,
    severity: str | None = None,
) -> Finding:
    """A finding for ``rule_id`` with the catalogue's severity (unless a rule that grades its
    findings passes one, e.g. FF302's warning case) and fix hint (unless given)."""
    r = BY_ID[rule_id]
    return Finding(rule_id, severity or r.severity, path, line, algorithm, message, fix or r.fix)

"""Seeded defects: one mutation of the faithful checkout per case, caught by rule ID and line.

Each case edits one or more files (old -> new) and names the finding it must produce: rule ID,
path and a needle whose first line in the (mutated) file is the expected line.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ffgen.verify.catalogue import rule
from tests.verify.conftest import ARGS, PKG, TRAINERS

ARGS_REG = f"{ARGS}/_registry.py"
TRAINER_REG = f"{TRAINERS}/registry.py"
ARGS_INIT = f"{ARGS}/__init__.py"
HPARAMS_INIT = f"{PKG}/hparams/__init__.py"
EX = "examples"
GRPO_EX = f"{EX}/grpo/lora/sd3_5/hpsv3_2x8_medium.yaml"
SFT_EX = f"{EX}/sft/lora/sd3_5/default.yaml"
DMD2_EX = f"{EX}/dmd2/lora/sd3_5/ocr.yaml"
NFT_EX = f"{EX}/nft/lora/sd3_5/default.yaml"
OPT_LINE = "  - {name: default, optimizer: adamw, learning_rate: 3.0e-4, max_grad_norm: 1.0}"


@dataclass(frozen=True)
class Case:
    id: str
    edits: tuple[tuple[str, str, str], ...]  # (path, old, new)
    rule: str
    path: str
    needle: str  # first line containing it (after the edits) is the expected line
    algorithm: str | None = None


def c(id, edits, rule, path, needle, algorithm=None):
    if isinstance(edits[0], str):
        edits = (edits,)
    return Case(id, tuple(edits), rule, path, needle, algorithm)


START = "    def sample(self) -> List[BaseSample]:"
CASES = [
    # FF001 / FF002: unreadable files
    c("py-syntax", (f"{TRAINERS}/rl/awm.py", "class AWMTrainer(BaseTrainer):",
                    "class AWMTrainer(BaseTrainer)"),
      "FF001", f"{TRAINERS}/rl/awm.py", "class AWMTrainer"),
    c("yaml-syntax", (NFT_EX, "train:\n", "train: [\n"), "FF002", NFT_EX, "group_size"),
    # FF101 / FF102: keys
    c("key-only-in-args", (TRAINER_REG, '    "awm": "flow_factory.trainers.rl.awm.AWMTrainer",\n',
                           ""), "FF101", ARGS_REG, '"awm": AWM', "awm"),
    c("key-only-in-trainers", (ARGS_REG, '    "crd": CRDTrainingArguments,\n', ""),
      "FF101", TRAINER_REG, '"crd":', "crd"),
    c("uppercase-key", ((ARGS_REG, '"nft": NFT', '"NFT": NFT'),
                        (TRAINER_REG, '"nft": "flow', '"NFT": "flow')),
      "FF102", ARGS_REG, '"NFT"', "NFT"),
    c("uppercase-key-trainer-side", ((ARGS_REG, '"dpo": DPO', '"Dpo": DPO'),
                                     (TRAINER_REG, '"dpo": "flow', '"Dpo": "flow')),
      "FF102", TRAINER_REG, '"Dpo"', "Dpo"),
    # FF108: a key written twice (Python keeps the last: `sft` would run AWM's trainer)
    c("duplicate-trainer-key", (TRAINER_REG, '    "offline-dpo": "flow_factory.trainers.offline.',
                                '    "sft":  "flow_factory.trainers.rl.awm.AWMTrainer",\n'
                                '    "offline-dpo": "flow_factory.trainers.offline.'),
      "FF108", TRAINER_REG, '"sft":  "flow', "sft"),
    c("duplicate-args-key", (ARGS_REG, '    "crd": CRDTrainingArguments,\n',
                             '    "crd": CRDTrainingArguments,\n'
                             '    "grpo":  CRDTrainingArguments,\n'),
      "FF108", ARGS_REG, '"grpo":  CRD', "grpo"),
    # FF103: trainer path
    c("trainer-module-missing",
      (TRAINER_REG, "trainers.rl.nft.Diffusion", "trainers.rl.nfT.Diffusion"),
      "FF103", TRAINER_REG, '"nft":', "nft"),
    c("trainer-class-missing", (TRAINER_REG, "awm.AWMTrainer", "awm.AwmTrainer"),
      "FF103", TRAINER_REG, '"awm":', "awm"),
    c("opd-path-flattened", (TRAINER_REG, "distillation.opd.trainer.", "distillation.opd."),
      "FF103", TRAINER_REG, '"diffusion-opd":', "diffusion-opd"),
    # FF104: args registry import
    c("args-not-imported", (ARGS_REG, "from .dgpo import DGPOTrainingArguments\n", ""),
      "FF104", ARGS_REG, '"dgpo":', "dgpo"),
    c("args-import-wrong-name", (ARGS_REG, "from .awm import AWMTrainingArguments",
                                 "from .crd import AWMTrainingArguments"),
      "FF104", ARGS_REG, '"awm":', "awm"),
    # FF105 / FF106: re-exports
    c("missing-reexport-all", (ARGS_INIT, '    "NFTTrainingArguments",\n', ""),
      "FF105", ARGS_INIT, "from .nft import", "nft"),
    c("missing-reexport-import", (ARGS_INIT, "from .sft import SFTTrainingArguments\n", ""),
      "FF105", ARGS_INIT, "__all__", "sft"),
    # FF109: a package re-exports a module that is not there (a module renamed by hand)
    c("reexport-of-a-missing-module",
      (f"{TRAINERS}/offline/__init__.py", "from .sft import SFTTrainer",
       "from .sft_v2 import SFTTrainer"),
      "FF109", f"{TRAINERS}/offline/__init__.py", "from .sft_v2 import"),
    c("missing-hparams-import", (HPARAMS_INIT, "    DMD2TrainingArguments,\n", ""),
      "FF106", HPARAMS_INIT, "__all__", "dmd2"),
    c("missing-hparams-all", (HPARAMS_INIT, '    "CRDTrainingArguments",\n', ""),
      "FF106", HPARAMS_INIT, "from .training_args import", "crd"),
    # FF107: unresolved base
    c("base-not-imported", (f"{TRAINERS}/rl/nft.py", "from ..abc import BaseTrainer\n", ""),
      "FF107", f"{TRAINERS}/rl/nft.py", "class DiffusionNFTTrainer", "nft"),
    c("base-import-points-nowhere", (f"{ARGS}/tdm.py", "from .dmd2 import", "from .dmd import"),
      "FF107", f"{ARGS}/tdm.py", "class TDMTrainingArguments", "tdm"),
    # FF201 / FF202: contracts
    c("wrong-contract-args-explicit", (f"{ARGS}/sft.py", "= OFFLINE_EXECUTION_CONTRACT",
                                       "= ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT"),
      "FF201", f"{TRAINERS}/offline/sft.py", "execution_contract =", "sft"),
    c("wrong-contract-trainer-declares", (
        f"{TRAINERS}/rl/nft.py", '    paradigm = "decoupled"\n',
        '    paradigm = "decoupled"\n'
        "    execution_contract = ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT\n"),
      "FF201", f"{TRAINERS}/rl/nft.py", "execution_contract =", "nft"),
    c("wrong-contract-inherited-args", (
        (f"{ARGS}/tdm.py", "class TDMTrainingArguments(DMD2TrainingArguments)",
         "class TDMTrainingArguments(TrainingArguments)"),
        (f"{ARGS}/tdm.py", "from .dmd2 import DMD2TrainingArguments",
         "from ._base import TrainingArguments")),
      "FF201", f"{TRAINERS}/distillation/tdm.py", "execution_contract:", "tdm"),
    c("wrong-contract-dropped-declaration", (
        f"{TRAINERS}/distillation/opd/trainer.py",
        "    execution_contract: ClassVar[ExecutionContract] = "
        "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT\n",
        ""),
      "FF201", f"{ARGS}/opd.py", "execution_contract:", "diffusion-opd"),
    c("hand-built-contract", (
        f"{ARGS}/offline_dpo.py", "= OFFLINE_EXECUTION_CONTRACT",
        "= ExecutionContract(AcquisitionMode.DATASET, FeedbackMode.RUNTIME_REWARD)"),
      "FF202", f"{ARGS}/offline_dpo.py", "execution_contract:", "offline-dpo"),
    # FF203 / FF204: paradigm
    c("no-paradigm", (f"{TRAINERS}/rl/awm.py", '    paradigm = "decoupled"\n', ""),
      "FF203", f"{TRAINERS}/rl/awm.py", "class AWMTrainer", "awm"),
    c("bad-paradigm", (f"{TRAINERS}/offline/sft.py", '= "decoupled"', '= "hybrid"'),
      "FF203", f"{TRAINERS}/offline/sft.py", "paradigm:", "sft"),
    c("coupled-offline", (f"{TRAINERS}/offline/offline_dpo.py",
                          'paradigm: ClassVar[Literal["decoupled"]] = "decoupled"',
                          'paradigm: ClassVar[Literal["coupled"]] = "coupled"'),
      "FF204", f"{TRAINERS}/offline/offline_dpo.py", "paradigm:", "offline-dpo"),
    # FF301 / FF302: the loop
    c("start-override", (f"{TRAINERS}/rl/dpo.py", START,
                         "    def start(self) -> None:\n        pass\n\n" + START),
      "FF301", f"{TRAINERS}/rl/dpo.py", "def start", "dpo"),
    c("start-override-in-mixin", (f"{TRAINERS}/distillation/tdm_trajectory.py",
                                  "    def _boundary_units",
                                  "    def start(self):\n        pass\n\n    def _boundary_units"),
      "FF301", f"{TRAINERS}/distillation/tdm_trajectory.py", "def start", "tdm"),
    c("manual-step", (f"{TRAINERS}/rl/nft.py", "        self._apply_optimizer_step({})",
                      "        self.step += 1"),
      "FF302", f"{TRAINERS}/rl/nft.py", "self.step += 1", "nft"),
    c("manual-step-beside-helper", (
        f"{TRAINERS}/offline/sft.py",
        "            self._loss_info = self._apply_optimizer_step(self._loss_info)\n",
        "            self._loss_info = self._apply_optimizer_step(self._loss_info)\n"
        "            self.step += 1\n"),
      "FF302", f"{TRAINERS}/offline/sft.py", "self.step += 1", "sft"),
    c("opd-own-step-and-helper", (
        f"{TRAINERS}/distillation/opd/trainer.py", "        if samples:\n",
        "        self._apply_optimizer_step({})\n        if samples:\n"),
      "FF302", f"{TRAINERS}/distillation/opd/trainer.py", "self.step += 1", "diffusion-opd"),
    c("manual-progress", (f"{TRAINERS}/offline/sft.py", "        return batch\n",
                          "        self.progress = self.progress.advance_optimizer_step()\n"),
      "FF302", f"{TRAINERS}/offline/sft.py", "advance_optimizer_step", "sft"),
    c("manual-epoch", (f"{TRAINERS}/rl/crd.py",
                       '        self.adapter.update_variant_snapshot("_crd_old", 0.0)',
                       "        self.epoch = self.epoch + 1"),
      "FF302", f"{TRAINERS}/rl/crd.py", "self.epoch =", "crd"),
    c("manual-data-epoch", (f"{TRAINERS}/rl/awm.py", "        self._apply_optimizer_step({})",
                            "        self._apply_optimizer_step({})\n        self.data_epoch += 1"),
      "FF302", f"{TRAINERS}/rl/awm.py", "self.data_epoch", "awm"),
    # FF303 / FF304: hooks
    c("generation-no-sample", (f"{TRAINERS}/rl/awm.py", START, "    def _sample(self):"),
      "FF303", f"{TRAINERS}/rl/awm.py", "class AWMTrainer", "awm"),
    c("generation-no-optimize",
      (f"{TRAINERS}/rl/dpo.py", "    def optimize(", "    def _optimize("),
      "FF303", f"{TRAINERS}/rl/dpo.py", "class DPOTrainer", "dpo"),
    c("dataset-defines-optimize", (f"{TRAINERS}/offline/sft.py", "    def _loss(self, batch):",
                                   "    def optimize(self, batch):"),
      "FF304", f"{TRAINERS}/offline/sft.py", "def optimize(", "sft"),
    c("dataset-no-optimize-batch", (f"{TRAINERS}/offline/offline_dpo.py",
                                    "def optimize_batch(", "def optimize_one("),
      "FF304", f"{TRAINERS}/offline/offline_dpo.py", "class OfflineDPOTrainer", "offline-dpo"),
    # FF305: trainer inheritance
    c("unsanctioned-extension", (
        (f"{TRAINERS}/rl/nft.py", "from ..abc import BaseTrainer", "from .awm import AWMTrainer"),
        (f"{TRAINERS}/rl/nft.py", "(BaseTrainer)", "(AWMTrainer)")),
      "FF305", f"{TRAINERS}/rl/nft.py", "class DiffusionNFTTrainer", "nft"),
    c("dppo-from-guard", (
        (f"{TRAINERS}/rl/dppo.py", "import GRPOTrainer", "import GRPOGuardTrainer"),
        (f"{TRAINERS}/rl/dppo.py", "(GRPOTrainer)", "(GRPOGuardTrainer)")),
      "FF305", f"{TRAINERS}/rl/dppo.py", "class DPPOTrainer", "dppo"),
    c("dmd2-from-tdm", (
        (f"{TRAINERS}/distillation/dmd2.py", "from ..abc import BaseTrainer",
         "from .tdm import TDMTrainer"),
        (f"{TRAINERS}/distillation/dmd2.py", "(BaseTrainer)", "(TDMTrainer)")),
      "FF305", f"{TRAINERS}/distillation/dmd2.py", "class DMD2Trainer", "dmd2"),
    # FF401: args base
    c("dataset-args-online-base", (
        (f"{ARGS}/sft.py", "from ._offline import OfflineFlowMatchingTrainingArguments",
         "from ._base import TrainingArguments"),
        (f"{ARGS}/sft.py", "(OfflineFlowMatchingTrainingArguments)", "(TrainingArguments)")),
      "FF401", f"{ARGS}/sft.py", "class SFTTrainingArguments", "sft"),
    c("generation-args-offline-base", (
        (f"{ARGS}/awm.py", "from ._base import TrainingArguments",
         "from ._offline import OfflineFlowMatchingTrainingArguments as TrainingArguments")),
      "FF401", f"{ARGS}/awm.py", "class AWMTrainingArguments", "awm"),
    # FF402: trainer_type
    c("trainer-type-default", (f"{ARGS}/sft.py", 'Literal["sft"] = field(default="sft"',
                               'Literal["sft"] = field(default="stf"'),
      "FF402", f"{ARGS}/sft.py", "trainer_type:", "sft"),
    # The real GRPO args inherit trainer_type; a class serving grpo and grpo-guard declares
    # a Literal naming only one of them.
    c("trainer-type-alias-literal", (f"{ARGS}/grpo.py", "    global_std: bool",
                                     '    trainer_type: Literal["grpo"] = "grpo"\n'
                                     "    global_std: bool"),
      "FF402", f"{ARGS}/grpo.py", "trainer_type:", "grpo"),
    c("trainer-type-inherited", (f"{ARGS}/dmd2.py", "    gradient_step_per_epoch: int = 1\n",
                                 '    gradient_step_per_epoch: int = 1\n'
                                 '    trainer_type: str = "dmd2"\n'),
      "FF402", f"{ARGS}/dmd2.py", "trainer_type:", "tdm"),
    # FF501-FF507: examples
    c("example-unregistered", (NFT_EX, "trainer_type: nft", "trainer_type: nft2"),
      "FF501", NFT_EX, "trainer_type"),
    c("coupled-ode", (GRPO_EX, '"Flow-SDE"', "ODE"), "FF502", GRPO_EX, "dynamics_type", "grpo"),
    c("coupled-no-scheduler", (f"{EX}/grpo_guard/lora/sd3_5/default.yaml",
                               "scheduler: {dynamics_type: Dance-SDE, seed: 42}\n", ""),
      "FF502", f"{EX}/grpo_guard/lora/sd3_5/default.yaml", "trainer_type", "grpo-guard"),
    c("dataset-weight", (SFT_EX, "weight: 1,", "weight: 2,"), "FF503", SFT_EX, "train: {", "sft"),
    c("dataset-sampler", (SFT_EX, "sampler_type: auto", "sampler_type: distributed"),
      "FF503", SFT_EX, "sampler_type", "sft"),
    c("dataset-auto-gas",
      (SFT_EX, "gradient_accumulation_steps: 1", "gradient_accumulation_steps: auto"),
      "FF503", SFT_EX, "gradient_accumulation_steps", "sft"),
    c("dataset-no-max-epochs", (SFT_EX, "  max_epochs: 1\n", ""),
      "FF503", SFT_EX, "=train:", "sft"),
    c("rewards-no-feedback", (DMD2_EX, "eval_rewards:", "rewards:\n  - {name: ocr}\neval_rewards:"),
      "FF504", DMD2_EX, "rewards:", "dmd2"),
    c("missing-role-optimizer", (DMD2_EX, "  - {name: fake,", "  - {name: critic,"),
      "FF608", DMD2_EX, "optimizers:", "dmd2"),
    c("missing-max-grad-norm", (NFT_EX, ", max_grad_norm: 1.0}", "}"),
      "FF505", NFT_EX, "- {name: default", "nft"),
    c("bad-optimizer-kind", (NFT_EX, "optimizer: adamw", "optimizer: sgd"),
      "FF505", NFT_EX, "- {name: default", "nft"),
    c("two-entries-single-role", (NFT_EX, OPT_LINE, OPT_LINE + "\n" + OPT_LINE.replace(
        "default", "extra")), "FF505", NFT_EX, "optimizers:", "nft"),
    c("configured-contract", (SFT_EX, "  max_epochs: 1\n",
                              "  max_epochs: 1\n  execution_contract: offline\n"),
      "FF506", SFT_EX, "execution_contract", "sft"),
    c("no-optimizers-multi-role", (DMD2_EX, "optimizers:\n", "old_optimizers:\n"),
      "FF505", DMD2_EX, "launcher", "dmd2"),
    c("no-optimizers-single-role", (NFT_EX, "optimizers:\n", "old_optimizers:\n"),
      "FF507", NFT_EX, "data:", "nft"),
    # FF601-FF604: roles and runtime children
    c("roles-missing", (f"{ARGS}/dmd2.py", "def required_trainable_roles(", "def trainable_roles("),
      "FF601", f"{ARGS}/dmd2.py", "class DMD2TrainingArguments", "dmd2"),
    c("roles-not-literal", (f"{ARGS}/tdm_r1.py", 'return ("generator", "fake", "surrogate")',
                            "return self._roles()"),
      "FF601", f"{ARGS}/tdm_r1.py", "def required_trainable_roles", "tdm-r1"),
    c("default-optimizers-missing-role", (
        f"{ARGS}/dmd2.py", '    AdamWOptimizerArguments(name="fake", learning_rate=1e-5),\n', ""),
      "FF602", f"{TRAINERS}/distillation/dmd2.py", "in DMD2_DEFAULT_OPTIMIZERS", "dmd2"),
    c("plan-wrong-role", (f"{ARGS}/tdm_r1.py", 'RolePhase("surrogate")', 'RolePhase("critic")'),
      "FF602", f"{ARGS}/tdm_r1.py", "def role_update_plan", "tdm-r1"),
    c("no-role-optimizer-hook", (f"{TRAINERS}/distillation/tdm.py",
                                 "def _optimizer_args_for_role(", "def _role_args("),
      "FF602", f"{TRAINERS}/distillation/tdm.py", "class TDMTrainer", "tdm"),
    c("undeclared-named-snapshot", (
        f"{TRAINERS}/distillation/dmd2.py", "    def _run_training_step(self) -> None:\n",
        "    def _initialize_snapshots(self) -> None:\n"
        '        self.adapter.add_named_parameters("dmd2_generator_ema")\n\n'
        "    def _run_training_step(self) -> None:\n"),
      "FF603", f"{TRAINERS}/distillation/dmd2.py", "add_named_parameters(", "dmd2"),
    c("snapshot-not-among-declared-children", (
        f"{TRAINERS}/rl/crd.py", '        self._register_named_parameter_runtime_child("_crd_old")',
        '        self.adapter.add_named_parameters(name="_crd_anchor")\n'
        '        self._register_named_parameter_runtime_child("_crd_old")'),
      "FF603", f"{TRAINERS}/rl/crd.py", "_crd_anchor", "crd"),
    c("variant-snapshot-without-multirole", (
        f"{TRAINERS}/rl/nft.py", "    def sample(self)",
        "    def _initialize_snapshots(self) -> None:\n"
        '        self.adapter.declare_variant_snapshot("default", "nft_old")\n\n'
        "    def sample(self)"),
      "FF603", f"{TRAINERS}/rl/nft.py", "declare_variant_snapshot", "nft"),
    c("reserved-child", (f"{TRAINERS}/rl/crd.py", '("_crd_old", "_crd_sampling")',
                         '("_crd_old", "_crd_sampling", "multirole")'),
      "FF604", f"{TRAINERS}/rl/crd.py", "runtime_child_names =", "crd"),
    c("undeclared-child",
      (f"{TRAINERS}/rl/crd.py", '("_crd_old", "_crd_sampling")', '("_crd_old",)'),
      "FF604", f"{TRAINERS}/rl/crd.py", 'child("_crd_sampling")', "crd"),
    # FF701-FF704: the guide's common failures (graded and passing cases: test_semantic_rules.py)
    c("collection-bypassed", (
        f"{TRAINERS}/rl/awm.py",
        "        return self.generate_samples(\n            reward_buffer=self.reward_buffer, "
        "compute_log_prob=False, trajectory_indices=[-1]\n        )\n",
        "        samples = []\n        for batch in self.dataloader:\n"
        "            samples.extend(self.adapter.inference(**batch, compute_log_prob=False))\n"
        "        return samples\n"),
      "FF701", f"{TRAINERS}/rl/awm.py", "self.adapter.inference(", "awm"),
    c("advantages-by-hand", (
        f"{TRAINERS}/rl/nft.py", "    def sample(self)",
        "    def prepare_feedback(self, samples: List[BaseSample]) -> None:\n"
        '        rewards = self.reward_buffer.finalize(store_to_samples=True, split="all")\n'
        '        scores = self.accelerator.gather(rewards["hpsv3"])\n'
        "        groups = scores.view(-1, self.training_args.group_size)\n"
        "        adv = (groups - groups.mean(dim=1, keepdim=True)) / groups.std(dim=1)\n"
        "        for sample, value in zip(samples, adv.flatten()):\n"
        '            sample.extra_kwargs["advantage"] = value\n\n'
        "    def sample(self)"),
      "FF702", f"{TRAINERS}/rl/nft.py", "self.accelerator.gather(rewards", "nft"),
    c("cached-target-state", (
        f"{TRAINERS}/offline/sft.py",
        "        encoded = self.adapter.encode_output_state(batch.output.target_media, prepared)\n",
        "        if batch.key not in self._targets:\n"
        "            self._targets[batch.key] = self.adapter.encode_output_state(\n"
        "                batch.output.target_media, prepared)\n"
        "        encoded = self._targets[batch.key]\n"),
      "FF703", f"{TRAINERS}/offline/sft.py", "self._targets[batch.key] = self", "sft"),
    c("condition-per-arm", (
        f"{TRAINERS}/offline/offline_dpo.py",
        "        rejected = self.adapter.encode_output_state(batch.output.rejected_media, "
        "prepared)\n",
        "        rejected = self.adapter.encode_output_state(\n"
        "            batch.output.rejected_media, self.adapter.prepare_condition_state(condition)\n"
        "        )\n"),
      "FF703", f"{TRAINERS}/offline/offline_dpo.py", "rejected_media, self.adapter.prepare",
      "offline-dpo"),
    c("unguarded-step", (
        f"{TRAINERS}/offline/sft.py",
        "        if self.accelerator.sync_gradients:\n"
        "            self._loss_info = self._apply_optimizer_step(self._loss_info)\n",
        "        self._loss_info = self._apply_optimizer_step(self._loss_info)\n"),
      "FF704", f"{TRAINERS}/offline/sft.py", "self._apply_optimizer_step(self._loss_info)", "sft"),
    c("epoch-end-flush", (
        f"{TRAINERS}/offline/offline_dpo.py", "    def _loss(self, batch):",
        "    def _after_acquisition_cycle(self) -> None:\n"
        "        self._apply_optimizer_step({})\n\n    def _loss(self, batch):"),
      "FF704", f"{TRAINERS}/offline/offline_dpo.py", "_apply_optimizer_step({})", "offline-dpo"),
    # FF705-FF708: the guide's common failures (graded and passing cases: test_semantic_roles.py)
    c("initialization-override", (
        f"{TRAINERS}/rl/nft.py", "    def sample(self)",
        "    def _initialization(self):\n        self.dataloader = None\n\n    def sample(self)"),
      "FF705", f"{TRAINERS}/rl/nft.py", "def _initialization", "nft"),
    c("initialization-rerun", (
        f"{TRAINERS}/distillation/dmd2.py",
        "        super().__init__(accelerator=accelerator, config=config, adapter=adapter)\n",
        "        super().__init__(accelerator=accelerator, config=config, adapter=adapter)\n"
        "        self._initialization()\n"),
      "FF705", f"{TRAINERS}/distillation/dmd2.py", "self._initialization()", "dmd2"),
    c("offline-forward-rollout-cfg", (
        f"{TRAINERS}/offline/offline_dpo.py",
        'source="offline DPO policy chosen",\n'
        "            **self.adapter.offline_training_forward_overrides,\n",
        'source="offline DPO policy chosen",\n'),
      "FF706", f"{TRAINERS}/offline/offline_dpo.py", "policy = forward_velocity_state(",
      "offline-dpo"),
    c("frozen-reference-as-role", (
        (f"{ARGS}/dmd2.py", 'return ("generator", "fake")',
         'return ("generator", "fake", "reference")'),
        (f"{ARGS}/dmd2.py", '    AdamWOptimizerArguments(name="fake", learning_rate=1e-5),\n',
         '    AdamWOptimizerArguments(name="fake", learning_rate=1e-5),\n'
         '    AdamWOptimizerArguments(name="reference", learning_rate=0.0),\n')),
      "FF707", f"{ARGS}/dmd2.py", "def required_trainable_roles", "dmd2"),
    c("undefined-argument-read", (
        f"{TRAINERS}/distillation/tdm.py", "repeats=self.training_args.ttur_fake_updates",
        "repeats=self.training_args.ttur_fake_steps"),
      "FF708", f"{TRAINERS}/distillation/tdm.py", "ttur_fake_steps", "tdm"),
]


@pytest.mark.parametrize("case", CASES, ids=[x.id for x in CASES])
def test_seeded_defect_is_caught(checkout, case: Case):
    for path, old, new in case.edits:
        checkout.edit(path, old, new)
    report = checkout.verify()
    expected = (case.rule, case.path, checkout.line(case.path, case.needle))
    got = [(f.rule_id, f.path, f.line) for f in report.findings]
    shown = "\n".join(f"{f.location} {f.rule_id} {f.message}" for f in report.findings)
    assert expected in got, shown
    hit = next(f for f in report.findings if (f.rule_id, f.path, f.line) == expected)
    assert hit.algorithm == case.algorithm
    assert hit.severity == rule(case.rule).severity  # a defect, not FF302's warning case
    assert hit.message and hit.fix and "\n" not in hit.message + hit.fix


def test_every_rule_has_a_seeded_defect():
    from ffgen.verify.catalogue import RULES
    from tests.verify.test_roles_backends import NEW_RULES

    # FF003: see test_exceptions.py; FF605-FF609 need accelerate configs: test_roles_backends.py
    covered = {x.rule for x in CASES} | {"FF003"} | set(NEW_RULES)
    assert {r.id for r in RULES} <= covered

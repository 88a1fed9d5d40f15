"""Classification and the interview: seven answers to an execution contract, family and names."""

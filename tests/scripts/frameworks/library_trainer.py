"""A script that trains through a library's trainer class (_library_trainer.py), which builds the Accelerator
from its ``accelerate_kwargs`` argument, in the style of muse-maskgit's and lucidrains' README examples: the user's
line for mixed precision is the trainer's construction, not an Accelerator(...) the script never writes.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs accelerate. Random data.
"""

import torch
import torch.nn as nn

from _library_trainer import RegressorTrainer

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 512))
trainer = RegressorTrainer(
    model,
    batch_size=512,
    num_train_steps=60,
)
trainer.train()

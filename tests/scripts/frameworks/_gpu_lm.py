"""The model and data the GPU framework scripts share: a decoder-only language model sized to be
compute-bound in float32 on a datacenter GPU (about 4 TFLOP a step), and a tiny one on a CPU so that the
same script also runs here. Random tokens: nothing is downloaded.
"""

import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

ON_GPU = torch.cuda.is_available()
# (vocab, width, layers, heads, context, batch): the GPU size keeps the matrix products large enough that
# float32 arithmetic, not kernel launches, paces the step; the CPU size keeps a step under a second.
SIZE = (8192, 1024, 6, 16, 512, 16) if ON_GPU else (512, 64, 2, 4, 64, 8)
VOCAB, WIDTH, LAYERS, HEADS, CONTEXT, BATCH = SIZE


class CausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.position = nn.Parameter(torch.zeros(CONTEXT, WIDTH))
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, 4 * WIDTH, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, LAYERS)
        self.head = nn.Linear(WIDTH, VOCAB)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(CONTEXT), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        return self.head(self.blocks(x, mask=self.mask, is_causal=True))


def token_data(sequences=1024, seed=0):
    """Next-token pairs of random tokens, made once in memory (the input is not what these scripts test)."""
    tokens = torch.randint(0, VOCAB, (sequences, CONTEXT + 1), generator=torch.Generator().manual_seed(seed))
    return TensorDataset(tokens[:, :-1], tokens[:, 1:])

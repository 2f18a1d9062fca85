"""A training script whose knobs come from a TOML file named on its command line (as tab-ddpm's or a Hydra run's
do), with a tiny batch: the fix is a line of that file. It also reads a model card (config.json, a library's
artefact), writes its resolved config to its output folder and reads a JSON of its own from a hidden folder: none
of those is the run's configuration."""

import argparse
import json
import os
import tomllib

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--steps", type=int, default=0)
    args = parser.parse_args()
    with open(args.config, "rb") as f:
        config = tomllib.load(f)
    here = os.path.dirname(os.path.abspath(args.config))
    for name in ("config.json", os.path.join(".cache", "state.json")):
        path = os.path.join(here, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                json.load(f)
    out = os.path.join(here, "outputs")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "resolved.json"), "w", encoding="utf-8") as f:
        json.dump(config, f)

    data = config["data"]
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 32, generator=g)
    y = (x[:, :4].sum(1) > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=data["batch_size"], shuffle=True,
                        num_workers=data["num_workers"])
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=config["train"]["lr"])
    step = 0
    for _ in range(config["train"]["epochs"]):
        for inputs, targets in loader:
            loss = nn.functional.cross_entropy(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if args.steps and step >= args.steps:
                return


if __name__ == "__main__":
    main()

"""Training loops of the shapes a step must survive, one per --shape:

gan          a GAN: two optimizers per batch (discriminator, then generator)
accumulate   gradient accumulation: 4 micro-batches per optimizer step
lbfgs        a closure-based optimizer (LBFGS runs forward and backward inside step())
closure      a framework-style loop: the whole training step in a closure passed to step()
nooptim      no optimizer object: a hand-written SGD update after backward
handmade     no DataLoader: batches built by hand, one optimizer
noise        an augmentation inside the model's forward draws noise from a DataLoader of its own
             (SpeechBrain's AddNoise does): one step per training batch, not two
grouped      detectron2's loader: one sample dict per fetch (batch_size=1, collate_fn=itemgetter(0)),
             grouped into lists of 2 dicts that the model takes
detection    torchvision's detection recipe: collate_fn=tuple(zip(*batch)) makes a tuple of 4 images
             and a tuple of 4 target dicts

Prints "ITERATIONS n" at the end so a test can count them.
"""
import argparse
import operator

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--shape", required=True)
p.add_argument("--iterations", type=int, default=400)
args = p.parse_args()
torch.manual_seed(0)
data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 4, (4096,)))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
loss_fn = nn.CrossEntropyLoss()
done = 0


def batches():
    while True:
        for batch in loader:
            yield batch


if args.shape == "gan":
    gen, disc = nn.Linear(8, 32), nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g, opt_d = torch.optim.Adam(gen.parameters()), torch.optim.Adam(disc.parameters())
    bce = nn.BCEWithLogitsLoss()
    for real, _ in batches():
        fake = gen(torch.randn(real.shape[0], 8))
        opt_d.zero_grad()
        d_loss = bce(disc(real), torch.ones(real.shape[0], 1)) + bce(disc(fake.detach()), torch.zeros(real.shape[0], 1))
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        bce(disc(fake), torch.ones(real.shape[0], 1)).backward()
        opt_g.step()
        done += 1
        if done == args.iterations:
            break
elif args.shape == "accumulate":
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    micro = 0
    for x, y in batches():
        (loss_fn(model(x), y) / 4).backward()
        micro += 1
        if micro % 4 == 0:
            opt.step()
            opt.zero_grad()
            done += 1
            if done == args.iterations:
                break
elif args.shape in ("lbfgs", "closure"):
    opt = torch.optim.LBFGS(model.parameters(), max_iter=4) if args.shape == "lbfgs" \
        else torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in batches():
        def closure():
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            return loss
        opt.step(closure)
        done += 1
        if done == args.iterations:
            break
elif args.shape == "nooptim":
    for x, y in batches():
        model.zero_grad()
        loss_fn(model(x), y).backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= 0.01 * param.grad
        done += 1
        if done == args.iterations:
            break
elif args.shape == "handmade":
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(args.iterations):
        idx = torch.randint(0, 4096, (16,))
        x, y = data.tensors[0][idx], data.tensors[1][idx]
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        done += 1
elif args.shape == "noise":
    noise = DataLoader(TensorDataset(torch.randn(48, 32)), batch_size=16)  # restarts every fourth draw

    class Noisy(nn.Module):
        def __init__(self):
            super().__init__()
            self.net, self.draws = model, iter(())

        def forward(self, x):
            try:
                (n,) = next(self.draws)
            except StopIteration:
                self.draws = iter(noise)
                (n,) = next(self.draws)
            return self.net(x + 0.1 * n)

    noisy = Noisy()
    opt = torch.optim.SGD(noisy.parameters(), lr=0.01)
    for x, y in batches():
        opt.zero_grad()
        loss_fn(noisy(x), y).backward()
        opt.step()
        done += 1
        if done == args.iterations:
            break
elif args.shape in ("grouped", "detection"):
    class Images(torch.utils.data.Dataset):
        def __len__(self):
            return 4096

        def __getitem__(self, i):
            image = torch.randn(3, 8, 4)  # channels first: its first dimension is not a batch
            if args.shape == "detection":
                return image, {"label": i % 4}
            return {"image": image, "target": {"label": i % 4}, "file_name": f"{i}.jpg"}

    head = nn.Linear(96, 4)
    opt = torch.optim.SGD(head.parameters(), lr=0.01)

    def train(samples):
        logits = head(torch.stack([s["image"].flatten() for s in samples]))
        labels = torch.tensor([s["target"]["label"] for s in samples])
        opt.zero_grad()
        loss_fn(logits, labels).backward()
        opt.step()

    if args.shape == "grouped":
        singles = iter(DataLoader(Images(), collate_fn=operator.itemgetter(0)))
        while done < args.iterations:
            train([next(singles), next(singles)])
            done += 1
    else:
        for images, targets in DataLoader(Images(), batch_size=4, collate_fn=lambda b: tuple(zip(*b))):
            train([{"image": i, "target": t} for i, t in zip(images, targets)])
            done += 1
            if done == args.iterations:
                break
print("ITERATIONS", done)

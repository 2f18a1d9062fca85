"""A training script whose command line is a click command (typer's are too): its options hold the knobs."""
import click
import torch
from torch.utils.data import DataLoader, TensorDataset


@click.command()
@click.option("--batch-size", "-b", default=8, show_default=True, help="samples per batch")
@click.option("--num-workers", default=0, help="DataLoader worker processes")
@click.option("--torch-compile/--no-torch-compile", default=False, help="compile the model")
@click.option("--epochs", default=40)  # more than the probe needs: it stops the script once measured
@click.argument("out", required=False)
def main(batch_size, num_workers, torch_compile, epochs, out):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(1024, 32), torch.randint(0, 4, (1024,)))
    loader = DataLoader(data, batch_size=batch_size, num_workers=num_workers)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    if torch_compile:
        model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()

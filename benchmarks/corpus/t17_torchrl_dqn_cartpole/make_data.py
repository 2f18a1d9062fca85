"""No data for pytorch/rl's sota-implementations/dqn/dqn_cartpole.py.

The script trains DQN on gymnasium's CartPole-v1, a classic-control environment simulated in-process (no download,
no rendering: logger.video is False). Nothing needs generating; this writes only a note into the run folder.
"""
import sys
from pathlib import Path


def main(run: Path) -> None:
    (run / "NO_DATA.txt").write_text("dqn_cartpole.py simulates CartPole-v1 with gymnasium; no data files are needed.\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

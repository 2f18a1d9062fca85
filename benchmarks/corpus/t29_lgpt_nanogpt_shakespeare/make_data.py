"""Generated stand-in for karpathy's char-rnn shakespeare_input.txt (what lightning-GPT's train.py downloads).

Writes RUN/data/shakespeare_input.txt: plain ASCII play text in the original's layout ("NAME:\n" speaker lines,
verse lines of words, a blank line between speeches), drawn from the same character set (upper and lower case
letters, punctuation and the rare '3' and '$' of the real file, 65 unique characters), seeded. The real file is 1,115,394 characters;
this one is N_CHARS characters (train.py: len(dataset) = ceil(N / (block_size + 1)) samples per epoch, 10 epochs),
which sets the run's length.
Usage: python make_data.py [RUN_DIR]   (default: the current folder)
"""
import random
import sys
from pathlib import Path

N_CHARS = 16_500  # ceil(16500 / 129) = 128 samples = 2 steps of 64 per epoch, x10 epochs = 20 steps

SPEAKERS = ["First Citizen", "Second Citizen", "MENENIUS", "MARCIUS", "CORIOLANUS", "VOLUMNIA", "BRUTUS",
            "SICINIUS", "KING RICHARD III", "GLOUCESTER", "QUEEN ELIZABETH", "DUKE VINCENTIO", "ISABELLA",
            "LUCIO", "ROMEO", "JULIET", "Nurse", "MERCUTIO", "BENVOLIO", "FRIAR LAURENCE", "PETRUCHIO",
            "KATHARINA", "LEONTES", "HERMIONE", "PAULINA", "Clown", "AUTOLYCUS", "PROSPERO", "MIRANDA"]
PUNCT = [",", ",", ".", ";", ":", "!", "?", "'", "-", "&", "$", "3"]  # 3 and $ occur (rarely) in the real file


def word(rng: random.Random) -> str:
    consonants, vowels = "bcdfghjklmnprstvwyqxz", "aeiou"
    n = rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 5, 6])
    w = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range((n + 1) // 2))[:n]
    if rng.random() < 0.08:
        w = w.capitalize()
    if rng.random() < 0.01:
        w = w.upper()
    return w


def main() -> None:
    run = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    rng = random.Random(29)
    out, size = [], 0
    while size < N_CHARS:
        speech = [rng.choice(SPEAKERS) + ":"]
        for _ in range(rng.randint(1, 6)):
            words = [word(rng) for _ in range(rng.randint(4, 10))]
            words[0] = words[0].capitalize()
            line = " ".join(w + (rng.choice(PUNCT) if rng.random() < 0.12 else "") for w in words)
            speech.append(line + rng.choice([",", ".", ";", ":", "!", "?", ""]))
        block = "\n".join(speech) + "\n\n"
        out.append(block)
        size += len(block)
    text = "".join(out)[:N_CHARS]
    path = run / "data" / "shakespeare_input.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")
    print(f"{path}: {len(text)} characters, {len(set(text))} unique")


if __name__ == "__main__":
    main()

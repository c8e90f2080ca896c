"""``python -m stepcheck FILE...`` is the ``verify`` command."""
from .cli import console

if __name__ == "__main__":
    console()

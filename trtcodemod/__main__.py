"""python -m trtcodemod."""
from trtcodemod.cli import main

if __name__ == "__main__":
    main()

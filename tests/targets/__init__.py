"""Small target servers the tests spawn (see ``rawserver.py`` and ``sdk_server.py``)."""

from pathlib import Path

TARGETS_DIR = Path(__file__).resolve().parent
RAWSERVER = TARGETS_DIR / "rawserver.py"
SDK_SERVER = TARGETS_DIR / "sdk_server.py"
POISONED = TARGETS_DIR / "poisoned.py"
MANY_TOOLS = TARGETS_DIR / "many_tools.py"
LEAKY_SURFACE = TARGETS_DIR / "leaky_surface.py"
HOSTILE_ANSWERS = TARGETS_DIR / "hostile_answers.py"
DEEP_DEFECTS = TARGETS_DIR / "deep_defects.py"  # one defect per deep oracle (issue 25)
DEEP_CLEAN = TARGETS_DIR / "deep_clean.py"  # its honest look-alike

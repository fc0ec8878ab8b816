"""Running venncal in a fresh interpreter in which some packages cannot be imported."""

import subprocess
import sys

#: imports ``module`` with every package of ``blocked`` unimportable, then fits a Venn-Abers
#: predictor (the core must work, not only import)
BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import {module}
from venncal.core.venn_abers import ivap_fit
print(ivap_fit([0.1, 0.2], [0, 1]).predict([0.15]))
"""


def run_blocked(module, blocked, then=""):
    """Run :data:`BLOCK` for ``module`` and ``blocked``, then the code ``then``."""
    code = BLOCK.format(module=module, blocked=set(blocked)) + then
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

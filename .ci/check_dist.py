"""Check what `python -m build` made: the sdist and the wheel hold the package, its
bundled data, py.typed and the licence, and carry the version pyproject.toml gives.

Usage: python .ci/check_dist.py DIST_DIR
"""

import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

dist = Path(sys.argv[1])
version = tomllib.loads(Path("pyproject.toml").read_text())["project"]["version"]
(wheel,) = dist.glob("*.whl")
(sdist,) = dist.glob("*.tar.gz")
wheel_names = set(zipfile.ZipFile(wheel).namelist())
sdist_names = {
    name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name
}
info = f"sk_adaprox-{version}.dist-info"
required = {
    wheel: (
        wheel_names,
        [
            "sk_adaprox/__init__.py",
            "sk_adaprox/_kernels/adagrad.py",
            "sk_adaprox/py.typed",
            "sk_adaprox/data/SMSSpamCollection.xz",
            f"{info}/licenses/LICENSE",
            f"{info}/METADATA",
        ],
    ),
    sdist: (
        sdist_names,
        [
            "LICENSE",
            "README.md",
            "pyproject.toml",
            "sk_adaprox/py.typed",
            "sk_adaprox/data/SMSSpamCollection.xz",
        ],
    ),
}
problems = [
    f"{path.name} lacks {name}"
    for path, (names, wanted) in required.items()
    for name in wanted
    if name not in names
]
if any(name.startswith("tests/") for name in wheel_names):
    problems.append(f"{wheel.name} holds the tests")
metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
if f"\nVersion: {version}\n" not in metadata:
    problems.append(f"{wheel.name}'s METADATA does not say Version: {version}")
if "License-Expression: BSD-3-Clause" not in metadata:
    problems.append(f"{wheel.name}'s METADATA has no License-Expression")
if problems:
    sys.exit("\n".join(problems))
print(f"{sdist.name}, {wheel.name}: package, data, py.typed, licence, {version}")

"""Survey faults found at stop 57: a scheduler address no scheduler can have is said so before any attempt."""

from __future__ import annotations

import pytest
from builders import osmosis


@pytest.mark.parametrize(("address", "said"), [
    ("tls://127.0.0.1:1", "uses tls://, which osmosis stats cannot use (tcp:// or ws:// only"),  # was "answered, but not as"
    ("ucx://127.0.0.1:1", "uses ucx://"),
    ("inproc://x", "uses inproc://"),  # was "(not enough values to unpack (expected 3, got 1))"
    ("TCP://127.0.0.1:1", "uses TCP://"),
    ("tcp://127.0.0.1:notaport", "is not a host and port"),  # was "(invalid literal for int() ...)"
    ("tcp://127.0.0.1:99999", "is not a host and port (a port is a number from 1 to 65535)"),  # waited 10 s
    ("tcp://127.0.0.1:0", "is not a host and port"),
    ("tcp://:8786", "is not a host and port"),
    ("127.0.0.1", "is not a host and port"),
    ("tcp://127.0.0.1:8786/path", "is not a host and port"),
])
def test_an_address_no_scheduler_can_have(tmp_path, address, said):
    result = osmosis(["stats", "--deals", "1-3", "--scheduler", address, "--store", str(tmp_path / "s.sqlite3")],
                     tmp_path / "home")
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and said in lines[0], result.stderr
    assert "like tcp://127.0.0.1:8786" in lines[0]
    for python_words in ("invalid literal", "unpack", "answered", "Timed out"):
        assert python_words not in lines[0]


def test_a_store_that_is_a_link_into_a_missing_folder_names_that_folder(tmp_path):
    """It said "check that its folder is writable and the disk is not full", where the README promises that a
    store in a missing folder says so."""
    link = tmp_path / "store.sqlite3"
    link.symlink_to(tmp_path / "gone" / "store.sqlite3")
    result = osmosis(["stats", "--deals", "1-3", "--store", str(link)], tmp_path / "home")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and f"there is no folder '{tmp_path / 'gone'}'" in lines[0], result.stderr
    assert "disk is not full" not in lines[0]

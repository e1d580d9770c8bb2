"""The path-shaped strings of the user's examples, which the sandbox copies (issue 20)."""

from __future__ import annotations

from mcprobe.core.example_paths import example_paths
from mcprobe.core.target_spec import target_spec


def test_paths_anywhere_in_the_examples_are_found_once_in_order() -> None:
    examples = {
        "write_file": [
            {"path": "/srv/notes.txt", "text": "hello"},
            {"path": "/srv/notes.txt", "options": {"backup": "./backups/notes.bak"}},
        ],
        "open_repo": {"repos": ["~/src/app", "../shared"], "depth": 3},
    }
    assert example_paths(examples) == (
        "/srv/notes.txt",
        "./backups/notes.bak",
        "~/src/app",
        "../shared",
    )


def test_urls_the_root_multi_line_and_huge_strings_are_not_paths() -> None:
    huge = "/" + "a" * 5000
    examples = {"t": {"u": "https://example.com/a/b", "r": "/", "n": "/a\n/b", "h": huge}}
    assert example_paths(examples) == ()
    assert example_paths({"t": {"word": "hello", "n": 3, "b": True}}) == ()


def test_the_walk_is_bounded() -> None:
    many = {"t": [{"p": f"/data/{i}"} for i in range(200)]}
    assert len(example_paths(many)) == 64
    deep: object = "/deep/path"
    for _ in range(40):
        deep = {"k": deep}
    assert example_paths({"t": deep}) == ()


def test_a_stdio_spec_carries_the_examples_paths_and_an_http_one_none() -> None:
    examples = {"write_file": {"path": "/srv/notes.txt", "text": "x"}}
    stdio = target_spec(command="server", examples=examples)
    assert stdio.example_paths == ("/srv/notes.txt",)
    assert target_spec(url="http://127.0.0.1:1/mcp", examples=examples).example_paths == ()

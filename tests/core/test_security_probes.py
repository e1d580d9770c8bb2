"""The attack probes (core/security/probes.py): what is sent to which parameter, and that only
a self-proving answer (a computed sum, the planted file's content, a listener hit) is a finding."""

from __future__ import annotations

from typing import Any

from mcprobe.core.security.probes import INJECTION_VARIANTS, ProbeSetup, judge_probes, plan_probes

SETUP = ProbeSetup(
    nonce="ab12",
    addends=(12000, 30000),
    canary_file="/tmp/mcprobe-probe-x/mcprobe-canary.txt",
    canary_content="mcprobe-file-canary-0f0f",
    listener="http://127.0.0.1:4567",
)


def _tool(**props: Any) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object", "properties": props}}


def test_a_tool_is_called_again_then_each_string_gets_every_injection_variant() -> None:
    probes = plan_probes(
        _tool(text={"type": "string"}, n={"type": "integer"}), {"text": "hi", "n": 1}, SETUP
    )
    assert probes[0].kind == "repeat" and probes[0].arguments == {"text": "hi", "n": 1}
    injections = [p for p in probes if p.kind == "injection"]
    assert [p.variant for p in injections] == [v for v, _ in INJECTION_VARIANTS]
    assert injections[0].arguments == {"text": "hi;echo mcprobe-$((12000+30000))", "n": 1}
    assert {p.proof for p in injections} == {"mcprobe-42000"}


def test_path_like_parameters_get_traversal_and_any_file_read_probes() -> None:
    probes = plan_probes(_tool(file_path={"type": "string"}), {"file_path": "a.txt"}, SETUP)
    values = {
        p.variant: p.arguments["file_path"] for p in probes if p.kind in ("traversal", "file_read")
    }
    assert values == {
        "dotdot": "../" * 12 + "tmp/mcprobe-probe-x/mcprobe-canary.txt",
        "encoded": "..%2F" * 12 + "tmp%2Fmcprobe-probe-x%2Fmcprobe-canary.txt",
        "absolute": "/tmp/mcprobe-probe-x/mcprobe-canary.txt",
        "file_url": "file:///tmp/mcprobe-probe-x/mcprobe-canary.txt",
    }


def test_only_url_like_parameters_get_the_loopback_url() -> None:
    probes = plan_probes(_tool(url={"type": "string"}, text={"type": "string"}), {}, SETUP)
    ssrf = [p for p in probes if p.kind == "ssrf"]
    assert [(p.param, p.arguments["url"]) for p in ssrf] == [
        ("url", "http://127.0.0.1:4567/mcprobe-ssrf-ab12-t-0")
    ]
    assert all(p.arguments["url"].startswith("http://127.0.0.1:") for p in ssrf)


def test_enums_and_non_strings_are_not_probed() -> None:
    probes = plan_probes(
        _tool(mode={"type": "string", "enum": ["a"]}, n={"type": "number"}), {}, SETUP
    )
    assert [p.kind for p in probes] == ["repeat"]


def test_only_the_computed_sum_proves_injection_an_echo_of_the_probe_does_not() -> None:
    probes = plan_probes(_tool(text={"type": "string"}), {"text": "hi"}, SETUP)
    first = next(p for p in probes if p.kind == "injection")
    echoed = {("t", first.label): "HI;ECHO MCPROBE-$((12000+30000))"}
    assert judge_probes(probes, echoed) == []
    computed = {("t", first.label): "hi\nmcprobe-42000\n"}
    found = judge_probes(probes, computed)
    assert [(f.code, f.location.param) for f in found] == [("security.command_injection", "text")]
    assert "probe:injection:semicolon:text" in found[0].message
    assert "mcprobe-$((12000+30000))" in found[0].message  # the exact arguments


def test_the_planted_content_proves_the_read_and_the_form_picks_the_code() -> None:
    probes = plan_probes(_tool(path={"type": "string"}), {"path": "a"}, SETUP)
    answers = {
        ("t", p.label): "mcprobe-file-canary-0f0f"
        for p in probes
        if p.kind in ("traversal", "file_read")
    }
    codes = sorted(f.code for f in judge_probes(probes, answers))
    assert codes == ["security.any_file_read", "security.path_traversal"]
    assert judge_probes(probes, {k: "no such file" for k in answers}) == []


def test_a_listener_hit_on_the_probes_own_path_proves_ssrf() -> None:
    probes = plan_probes(_tool(url={"type": "string"}), {}, SETUP)
    assert judge_probes(probes, {}, ["/favicon.ico"]) == []
    found = judge_probes(probes, {}, ["/mcprobe-ssrf-ab12-t-0"])
    assert [f.code for f in found] == ["security.ssrf"]

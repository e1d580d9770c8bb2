"""Path traversal through resource templates (core/security/template_probes.py): which URIs are
read, and that only the planted file's content in the answer is a finding, named by its URI."""

from __future__ import annotations

from mcprobe.core.security.template_probes import judge_template_probes, plan_template_probes

CANARY = "/var/tmp/mcprobe-probe-x/mcprobe-canary.txt"
CONTENT = "mcprobe-file-canary-0f0f"
DOCUMENT = [{"uriTemplate": "document://{filename}", "name": "document"}]


def test_each_template_variable_gets_the_dotdot_encoded_and_absolute_forms() -> None:
    probes = plan_template_probes(DOCUMENT, CANARY, CONTENT)
    relative = "var/tmp/mcprobe-probe-x/mcprobe-canary.txt"
    assert {p.variant: p.uri for p in probes} == {
        "dotdot": "document://" + "../" * 12 + relative,
        "encoded": "document://" + "..%2F" * 12 + relative.replace("/", "%2F"),
        "absolute": "document://" + CANARY,
        "absolute_encoded": "document://" + CANARY.replace("/", "%2F"),
    }
    assert {p.label for p in probes} >= {"probe:template_traversal:dotdot:filename"}


def test_the_other_variables_keep_a_plain_value_and_invalid_templates_get_none() -> None:
    probes = plan_template_probes(
        [{"uriTemplate": "db://{table}/{id}"}, {"uriTemplate": "bad://{x"}, {"name": "no"}],
        CANARY,
        CONTENT,
    )
    assert {p.template for p in probes} == {"db://{table}/{id}"}
    absolute = [p.uri for p in probes if p.variant == "absolute"]
    assert absolute == ["db://" + CANARY + "/1", "db://1/" + CANARY]


def test_the_planted_content_proves_the_escape_and_the_finding_names_the_uri() -> None:
    probes = plan_template_probes(DOCUMENT, CANARY, CONTENT)
    answers = {p.uri: f'{{"contents": [{{"text": "{CONTENT}\\n"}}]}}' for p in probes}
    found = judge_template_probes(probes, answers)
    assert [(f.code, f.location.resource) for f in found] == [
        ("security.path_traversal", "document://{filename}"),
        ("security.any_file_read", "document://{filename}"),
    ]
    dotdot = next(p for p in probes if p.variant == "dotdot")
    assert f"`resources/read` of `{dotdot.uri}`" in found[0].message
    assert "`{filename}`" in found[0].message and CONTENT in found[0].message


def test_a_refusal_or_an_echo_of_the_uri_proves_nothing() -> None:
    probes = plan_template_probes(DOCUMENT, CANARY, CONTENT)
    refused = {p.uri: f"refused: {p.uri} is outside the documents folder" for p in probes}
    assert judge_template_probes(probes, refused) == []
    echoing = plan_template_probes([{"uriTemplate": "x://" + CONTENT + "/{f}"}], CANARY, CONTENT)
    assert judge_template_probes(echoing, {p.uri: p.uri for p in echoing}) == []

"""A target spec describes the target by the names of its secrets, never their values."""

from mcprobe.core.target_spec import TargetSpec, scrub


def test_describe_names_env_and_headers_but_never_their_values() -> None:
    spec = TargetSpec(
        "http",
        url="http://127.0.0.1:1/mcp",
        headers={"X-Api-Key": "hdr-secret-1"},
        bearer="bearer-secret-2",
    )
    described = spec.describe().model_dump_json()
    assert "X-Api-Key" in described
    assert "hdr-secret-1" not in described and "bearer-secret-2" not in described
    assert "hdr-secret-1" not in repr(spec) and "bearer-secret-2" not in repr(spec)


def test_url_passwords_and_query_values_are_secrets_and_are_redacted() -> None:
    spec = TargetSpec("http", url="https://user:pw-secret-3@example.test/mcp?key=query-secret-4")
    assert set(spec.secret_values()) == {"pw-secret-3", "query-secret-4"}
    url = spec.describe().url or ""
    assert "pw-secret-3" not in url and "query-secret-4" not in url
    assert url.startswith("https://user:[redacted]@example.test/mcp?key=")


def test_scrub_replaces_longer_secrets_first_and_ignores_tiny_values() -> None:
    spec = TargetSpec("stdio", command="x", env={"A": "abcd", "B": "abcdefgh", "C": "ab"})
    assert spec.secret_values() == ("abcdefgh", "abcd")
    assert scrub("abcdefgh abcd ab", spec.secret_values()) == "[redacted] [redacted] ab"


def test_query_values_without_a_credential_name_are_not_treated_as_secrets() -> None:
    spec = TargetSpec("http", url="https://example.test/mcp?format=json&access_token=tok-secret-5")
    assert spec.secret_values() == ("tok-secret-5",)

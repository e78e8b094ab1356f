"""Credentials in URLs (agentops.http.urls), tested on the module itself so the mutation
benchmark runs these tests against its mutants (#26). What is pinned is what
docs/security.md "Secrets" and agentops/http/__init__.py promise: an index or wheel
URL's ``user:password@`` and credential-like query values are redacted from anything
shown and registered with the scrubber; credentials never travel to another host or
port; a configured URL must be http(s) with a host. Hosts and credentials are made up.
"""

from __future__ import annotations

import pytest

from agentops import redaction
from agentops.errors import InputError
from agentops.http import urls

# --- redact: what a message, a log line or a summary may show ------------------------------

def test_redact_hides_userinfo_and_keeps_the_host_and_path() -> None:
    shown = urls.redact("https://carol:pw-7781zz@wheels.example.test:8443/simple/pkg/")
    assert "carol" not in shown and "pw-7781zz" not in shown
    assert shown == "https://***@wheels.example.test:8443/simple/pkg/"


@pytest.mark.parametrize("key", [
    "token", "access_token", "client_secret", "password", "db_passwd", "sig", "Signature",
    "X-Amz-Signature", "x-amz-credential", "X-Amz-Security-Token", "key", "api-key",
    "apikey", "api_key", "access-key", "accesskey", "auth", "code"])
def test_redact_hides_each_credential_like_query_value(key: str) -> None:
    shown = urls.redact(f"https://cdn.example.test/w.whl?{key}=Zq81vv0c&arch=x86")
    assert "Zq81vv0c" not in shown
    assert "arch=x86" in shown  # an ordinary parameter stays readable


@pytest.mark.parametrize("key", ["keys", "monkey", "author", "codec", "signed", "sigma"])
def test_redact_keeps_a_parameter_that_only_contains_a_credential_word(key: str) -> None:
    url = f"https://cdn.example.test/w.whl?{key}=plain-value-4"
    assert urls.redact(url) == url


def test_redact_leaves_a_url_without_credentials_as_it_was() -> None:
    url = "https://cdn.example.test/nightly/w.whl?arch=x86&py=3.11#frag"
    assert urls.redact(url) == url


def test_redact_of_a_url_urllib_cannot_split_still_hides_the_userinfo() -> None:
    # An unbalanced IPv6 bracket makes urlsplit raise: the text fallback still redacts.
    shown = urls.redact("http://dave:hunter-991@[::1/simple")
    assert "hunter-991" not in shown and "dave" not in shown
    assert shown.startswith("http://***@")


def test_redact_text_hides_userinfo_and_secret_query_values_in_free_text() -> None:
    text = ("fetch of https://erin:Qw9-pass@idx.example.test/s/?token=tk_55aa&page=2 failed; "
            "retry http://other.example.test/?sig=abc123&x=1")
    shown = urls.redact_text(text)
    for secret in ("erin", "Qw9-pass", "tk_55aa", "abc123"):
        assert secret not in shown
    assert "page=2" in shown and "x=1" in shown
    assert "idx.example.test/s/" in shown


# --- userinfo stripped, or carried only to the same host and port --------------------------

def test_strip_userinfo_removes_user_and_password_only() -> None:
    assert urls.strip_userinfo("https://u1:p1@idx.example.test:9000/a?b=1") == \
        "https://idx.example.test:9000/a?b=1"
    assert urls.strip_userinfo("https://idx.example.test/a") == "https://idx.example.test/a"


def test_credentials_are_carried_to_a_file_on_the_same_host_and_port() -> None:
    got = urls.with_credentials_of("https://IDX.example.test/files/w.whl",
                                   "https://fay:pw-443x@idx.example.test/simple/")
    assert got == "https://fay:pw-443x@idx.example.test/files/w.whl"


@pytest.mark.parametrize("file_url", [
    "https://files.example.test/w.whl",            # another host
    "https://idx.example.test:8443/w.whl",         # same host, another port
    "https://idx.example.test.attacker.test/w.whl",  # a host that only starts the same
])
def test_credentials_never_travel_to_another_host_or_port(file_url: str) -> None:
    got = urls.with_credentials_of(file_url, "https://fay:pw-443x@idx.example.test/simple/")
    assert "pw-443x" not in got and "fay" not in got
    assert got == file_url


def test_a_file_urls_own_userinfo_is_dropped_when_the_index_has_none() -> None:
    got = urls.with_credentials_of("https://gus:own-pw9@idx.example.test/w.whl",
                                   "https://idx.example.test/simple/")
    assert got == "https://idx.example.test/w.whl"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("https://h.example.test/x", "https://h.example.test/y", True),
    ("https://H.example.test:443/x", "https://h.example.test/y", True),
    ("http://h.example.test/x", "https://h.example.test/y", True),   # upgrade, std ports
    ("https://h.example.test/x", "http://h.example.test/y", False),  # downgrade
    ("http://h.example.test:8080/x", "https://h.example.test/y", False),
    ("https://h.example.test/x", "https://h.example.test:8443/y", False),
    ("https://h.example.test/x", "https://g.example.test/x", False),
])
def test_a_redirect_keeps_the_authorization_only_on_the_same_origin(
        a: str, b: str, same: bool) -> None:
    assert urls._same_origin(a, b) is same


# --- registered with the scrubber ---------------------------------------------------------

def test_mask_credentials_registers_the_password_and_secret_query_values() -> None:
    urls.mask_credentials("https://hal:Pw-6612-zz@idx.example.test/s?api_key=K3y-991q&arch=x86")
    out = redaction.scrub("echo: Pw-6612-zz K3y-991q arch x86")
    assert "Pw-6612-zz" not in out and "K3y-991q" not in out
    assert "arch x86" in out  # an ordinary value is not a secret


def test_mask_credentials_registers_a_token_given_as_the_user_name() -> None:
    urls.mask_credentials("https://tok-5512abcd@idx.example.test/simple/")
    assert "tok-5512abcd" not in redaction.scrub("server said tok-5512abcd")


def test_mask_credentials_of_a_url_without_credentials_registers_nothing() -> None:
    urls.mask_credentials("https://idx.example.test/simple/?arch=x86_64")
    assert redaction.scrub("arch x86_64 idx.example.test") == "arch x86_64 idx.example.test"


# --- a configured URL ---------------------------------------------------------------------

@pytest.mark.parametrize("value", ["http://idx.example.test/s", "https://idx.example.test"])
def test_an_http_url_with_a_host_is_accepted_as_given(value: str) -> None:
    assert urls.check_http_url(value, field_name="--index-url", example="https://x") == value


@pytest.mark.parametrize("value", ["file:///etc/passwd", "https://", "idx.example.test/s",
                                   "ftp://idx.example.test/", "http://[::1/s"])
def test_anything_else_is_an_input_error_naming_the_field(value: str) -> None:
    with pytest.raises(InputError) as err:
        urls.check_http_url(value, field_name="--index-url", example="https://idx/simple")
    assert "--index-url" in str(err.value)


def test_the_refusal_does_not_show_the_password_it_refuses() -> None:
    with pytest.raises(InputError) as err:
        urls.check_http_url("ftp://ivy:pw-ftp-77@idx.example.test/", field_name="--wheel-url",
                            example="https://idx/w.whl")
    assert "pw-ftp-77" not in str(err.value)

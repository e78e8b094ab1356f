"""#22 exceptions swallowed into an ordinary value (``swallowed``). Match: a handler of a
function that returns a computed value, which falls off the end (implicit ``None``) or
returns an empty container / constant on some path (a conditional re-raise included).
No-match: a handler re-raising on every path, a value the function returns outside its
handlers anyway, a function returning no computed value, a ``finally``, a try that is
not the last statement, tests and ``__main__`` scripts, code outside the folder. All
trees are made up."""

from __future__ import annotations

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import swallowed
from agentops.scout.itemize import debt
from tests.scout import minirepo

FOUND = '''\
class Runner:
    def run(self, batch):
        try:
            return self.kernels[self.mode].apply(batch)
        except Exception as e:
            print(f"kernel {self.mode} failed: {e}")


def connect(addr):
    try:
        sock = open_socket(addr, timeout=3)
    except OSError as e:
        if "refused" in str(e):
            cleanup(addr)
            return {}
        raise
    return {"sock": sock, "addr": addr}


def load(path):
    try:
        table = parse(path)
    except (ValueError, KeyError):
        return None
    return table.rows
'''


def _run(tmp_path, files: dict[str, str]):
    inp = minirepo.build(tmp_path, head=files)
    return inp, swallowed.analyse(inp)


def test_handlers_turning_a_failure_into_a_value_are_found(tmp_path) -> None:
    inp, found = _run(tmp_path, {"sub/run.py": FOUND})
    assert [(f.file, f.line, f.function, f.caught, f.gives) for f in found] == [
        ("sub/run.py", 5, "run", "Exception", "falls through to None"),
        ("sub/run.py", 12, "connect", "OSError", "returns `{}`"),
        ("sub/run.py", 23, "load", "(ValueError, KeyError)", "returns `None`")]
    [item] = debt._swallowed(inp, {"swallowed_errors": found})
    assert item.kind == "fyi" and item.section == "S-4" and item.severity == "nice-to-have"
    assert item.title == (
        "3 exception handlers turning a failure into a value the function does not "
        "otherwise return, which the caller takes as a result: `except Exception` in `run` "
        "(run.py:5) falls through to None; `except OSError` in `connect` (run.py:12) "
        "returns `{}`; `except (ValueError, KeyError)` in `load` (run.py:23) returns `None`")
    assert item.files == ("sub/run.py",)
    assert item.facts == ("sub/run.py:12:connect", "sub/run.py:23:load", "sub/run.py:5:run")


def test_contracts_reraises_and_non_results_are_not(tmp_path) -> None:
    text = '''\
def reraise(x):
    try:
        return compute(x)
    except ValueError as e:
        log(e)
        raise RuntimeError("bad") from e


def both_paths_raise(x):
    try:
        return compute(x)
    except ValueError as e:
        if "soft" in str(e):
            raise
        raise RuntimeError(x) from e


def lookup(table, key):
    if key is None:
        return None
    try:
        return table.resolve(key)
    except KeyError:
        return None


def notify(x):
    try:
        send(x)
    except OSError:
        return False
    return True


def with_finally(x):
    try:
        return compute(x)
    except ValueError:
        log(x)
    finally:
        close(x)


def not_last(x):
    try:
        y = compute(x)
    except ValueError:
        log(x)
    return y.value


def in_loop(xs):
    for x in xs:
        try:
            return compute(x)
        except ValueError:
            continue
    raise LookupError(xs)
'''
    _inp, found = _run(tmp_path, {"sub/ok.py": text})
    assert found == []


def test_tests_scripts_and_other_folders_are_left_alone(tmp_path) -> None:
    script = FOUND + '\n\nif __name__ == "__main__":\n    connect("x")\n'
    _inp, found = _run(tmp_path, {"sub/tests/test_run.py": FOUND, "sub/debug.py": script,
                                  "core/run.py": FOUND})
    assert found == []
    assert len(swallowed.handlers(ps.parse(FOUND), "core/run.py")) == 3
    assert swallowed.handlers(ps.parse(script), "sub/debug.py") == []


def test_a_nested_function_is_judged_on_its_own_returns(tmp_path) -> None:
    text = '''\
def outer(x):
    def inner():
        try:
            helper(x)
        except Exception:
            pass
    inner()
    return x.value


def wrapper(x):
    def fallback():
        return None
    try:
        return compute(x)
    except ValueError:
        return None
'''
    _inp, found = _run(tmp_path, {"sub/nest.py": text})
    assert [(f.function, f.line, f.gives) for f in found] == [
        ("wrapper", 16, "returns `None`")]

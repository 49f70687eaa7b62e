"""The prompt history holds what the user typed: private like a transcript."""

from larik.tui import history


def test_the_prompt_history_is_created_private_and_an_old_one_made_private(tmp_path):
    path = tmp_path / "state" / "prompt-history.jsonl"
    history.append(path, "my secret plan")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    path.chmod(0o644)
    history.append(path, "another")
    assert path.stat().st_mode & 0o777 == 0o600
    assert history.load(path) == ["my secret plan", "another"]

"""Provider registry: credentials declared at registration, built-ins, lazy factories."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from larik.llm import registry
from larik.llm.errors import ResolveError
from larik.llm.registry import RegistryError


def _factory(**kw):
    raise AssertionError("not built in these tests")


@pytest.fixture
def scratch_name():
    name = "test-scratch-provider"
    yield name
    registry.unregister(name)


def test_credentials_are_a_required_argument(scratch_name):
    with pytest.raises(TypeError):
        registry.register(scratch_name, _factory)  # type: ignore[call-arg]
    assert registry.get(scratch_name) is None


def test_registering_records_the_declared_credentials(scratch_name):
    spec = registry.register(scratch_name, _factory, ["SCRATCH_KEY", "SCRATCH_TOKEN"])
    assert registry.get(scratch_name) is spec
    assert spec.credential_env_names == ("SCRATCH_KEY", "SCRATCH_TOKEN")
    assert spec.needs_key


def test_an_empty_credential_list_means_no_key_is_needed(scratch_name):
    assert not registry.register(scratch_name, _factory, []).needs_key


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_name_is_an_error(name):
    with pytest.raises(RegistryError, match="name"):
        registry.register(name, _factory, [])


def test_no_factory_is_an_error(scratch_name):
    with pytest.raises(RegistryError, match="factory"):
        registry.register(scratch_name, None, [])


def test_a_duplicate_name_is_an_error(scratch_name):
    registry.register(scratch_name, _factory, [])
    with pytest.raises(RegistryError, match="already registered"):
        registry.register(scratch_name, _factory, [])


def test_a_bare_string_is_not_a_credential_list(scratch_name):
    with pytest.raises(RegistryError, match="list"):
        registry.register(scratch_name, _factory, "SCRATCH_KEY")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "env"),
    [
        ("anthropic", ("ANTHROPIC_API_KEY",)),
        ("openai", ("OPENAI_API_KEY",)),
        ("gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
        ("ollama", ()),
        ("openrouter", ("OPENROUTER_API_KEY",)),
        ("groq", ("GROQ_API_KEY",)),
        ("deepseek", ("DEEPSEEK_API_KEY",)),
        ("nvidia-nim", ("NVIDIA_API_KEY",)),
        ("lmstudio", ()),
        ("llamacpp", ()),
        ("vllm", ()),
        ("scripted", ()),
    ],
)
def test_built_in_providers_declare_their_credentials(name, env):
    spec = registry.get(name)
    assert spec is not None
    assert spec.credential_env_names == env


def test_every_openai_compatible_preset_is_registered_with_the_compat_adapter():
    from larik.llm.providers.presets import PRESETS

    for name, preset in PRESETS.items():
        spec = registry.get(name)
        assert spec is not None, name
        assert spec.type == "openai-compatible"
        assert spec.base_url == preset.base_url
        assert spec.local == preset.local
        assert spec.credential_env_names == preset.env
        assert spec.options["reasoning_history"] == preset.reasoning_history


def test_nvidia_nim_uses_nvidias_hosted_endpoint():
    assert registry.get("nvidia-nim").base_url == "https://integrate.api.nvidia.com/v1"


def test_factories_are_import_paths_until_built():
    assert isinstance(registry.get("anthropic").factory, str)
    assert registry.load_factory(_factory) is _factory


def test_an_unloadable_factory_is_a_resolve_error():
    with pytest.raises(ResolveError, match="not available"):
        registry.load_factory("larik.no_such_module:Nothing")


def test_scripted_is_one_instance_per_absolute_path(tmp_path, monkeypatch):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "hi"}]}))
    other = tmp_path / "t.json"
    other.write_text(json.dumps({"turns": [{"text": "yo"}]}))
    monkeypatch.chdir(tmp_path)
    a = registry.scripted_provider("s.json")
    assert registry.scripted_provider(script) is a
    assert registry.scripted_provider(other) is not a


def test_importing_the_registry_catalog_and_routing_imports_no_sdk():
    probe = (
        "import sys\n"
        "import larik.llm.registry, larik.llm.catalog, larik.config, larik.routing\n"
        "import larik.commands.models, larik.commands.routing\n"
        "heavy = ('anthropic', 'openai', 'google.genai', 'textual', 'httpx2')\n"
        "print(','.join(h for h in heavy if h in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- kinds -------------------------------------------------------------------------------------


def test_every_built_in_kind_is_registered_once_with_its_facts():
    kinds = {k.name: k for k in registry.kinds()}
    assert set(kinds) == {
        "anthropic",
        "openai",
        "gemini",
        "ollama",
        "openai-compatible",
        "chatgpt",
        "copilot",
        "local",
        "scripted",
    }
    assert kinds["local"].starts_server and kinds["local"].per_model
    assert registry.get("local").local and not registry.get("local").needs_key
    assert kinds["anthropic"].base_url_env == "ANTHROPIC_BASE_URL"
    assert kinds["chatgpt"].signin == "chatgpt" and kinds["copilot"].signin == "copilot"
    assert kinds["ollama"].optional_key_env == ("OLLAMA_API_KEY",)
    assert kinds["scripted"].in_process and not kinds["scripted"].listed


def test_a_kind_with_a_provider_of_its_name_registers_both_and_unregisters_both():
    entry = registry.Kind(
        name="test-kind", adapter="x:Y", warm_modules=(), base_url="https://t.example"
    )
    registry.register_kind(entry)
    try:
        assert registry.kind("test-kind") is entry
        assert registry.get("test-kind").type == "test-kind"
        with pytest.raises(RegistryError, match="already registered"):
            registry.register_kind(entry)
    finally:
        registry.unregister_kind("test-kind")
    assert registry.kind("test-kind") is None and registry.get("test-kind") is None


def test_a_config_type_must_be_a_registered_kind():
    from larik.config import Config

    with pytest.raises(ValueError, match="must be one of anthropic, openai"):
        Config(providers={"box": {"type": "azure"}})
    with pytest.raises(ValueError, match="must be one of"):
        Config(providers={"box": {"type": "scripted"}})  # not offered as a config type

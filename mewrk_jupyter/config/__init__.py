"""The configuration folder (`.mewrk/` or $MEWRK_HOME): YAML files loaded and validated, secrets by reference."""

from .agents import AgentConfig
from .environment import SECRET_NAMES, EnvironmentPolicy, command_environment, secret_values
from .exposure import Exposure, exposure_of
from .files import EDITABLE_KINDS, KINDS, FileKind, validate_file
from .llm import PROTOCOLS, ModelConfig, Prices, VendorConfig
from .loader import Config, load_config, policy_for, read_config
from .policy import TIERS, PolicyConfig
from .problems import InvalidConfig, Problem
from .prompts import PROMPT_KEYS, PromptProfile
from .redaction import REDACTED, Redactor
from .secrets import is_reference, resolve_secret
from .server import ServerConfig
from .tools import ToolConfig
from .trust import TrustState, distrust_folder, trust_folder, trust_state, user_config_dir

__all__ = [
    "EDITABLE_KINDS",
    "KINDS",
    "PROMPT_KEYS",
    "PROTOCOLS",
    "REDACTED",
    "SECRET_NAMES",
    "TIERS",
    "AgentConfig",
    "Config",
    "EnvironmentPolicy",
    "Exposure",
    "FileKind",
    "InvalidConfig",
    "ModelConfig",
    "PolicyConfig",
    "Prices",
    "Problem",
    "PromptProfile",
    "Redactor",
    "ServerConfig",
    "ToolConfig",
    "TrustState",
    "VendorConfig",
    "command_environment",
    "distrust_folder",
    "exposure_of",
    "is_reference",
    "load_config",
    "policy_for",
    "read_config",
    "resolve_secret",
    "secret_values",
    "trust_folder",
    "trust_state",
    "user_config_dir",
    "validate_file",
]

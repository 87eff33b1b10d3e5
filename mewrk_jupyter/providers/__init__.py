"""Providers: one adapter per wire protocol, turning a neutral request into neutral stream events."""

from .base import ModelInfo, ModelRequest, Provider
from .registry import DEFAULT_MODEL, resolve

__all__ = ["DEFAULT_MODEL", "ModelInfo", "ModelRequest", "Provider", "resolve"]

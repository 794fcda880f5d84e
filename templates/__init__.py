"""Derivative rules, written as Python templates (see s2s_ad.rules)."""

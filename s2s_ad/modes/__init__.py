"""The derivative emitters, one package per mode."""

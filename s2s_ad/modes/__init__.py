"""The derivative emitters, one package per mode (see DESIGN.md, Data flow)."""

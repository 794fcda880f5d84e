"""Reverse mode, by job: refusals, record, emit (the adjoint pass), tape, assemble."""

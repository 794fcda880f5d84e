"""Programs modelled on HIPS autograd's examples (own code), each run on plain NumPy for s2s_ad
and on autograd's wrappers for autograd by `harness`; `run.py` checks and times them."""

"""np.linalg.eig of a real matrix whose eigenvalues are real: its rules' check."""
import numpy as np


def real_eig(y):
    """`y`, the (eigenvalues, eigenvectors) of np.linalg.eig, as a tuple, where the eigenvalues
    are real; complex ones are refused (the rules follow real eigenvalues only)."""
    if np.iscomplexobj(y[0]):
        raise ValueError("cannot differentiate np.linalg.eig (or np.linalg.eigvals) of a matrix "
                         "with complex eigenvalues: complex eigenvalues are not supported yet")
    return tuple(y)

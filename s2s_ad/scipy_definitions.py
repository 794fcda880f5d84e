"""SciPy functions written with the functions that have rules (as s2s_ad/definitions.py's are
NumPy's): imported only once the user's code has imported scipy.stats (definitions.defined)."""
import numpy as np
from scipy import stats


def t_pdf(x, df, loc=0, scale=1):
    """scipy.stats.t.pdf: the exponential of the log density."""
    return np.exp(stats.t.logpdf(x, df, loc, scale))


def gamma_pdf(x, a, loc=0, scale=1):
    """scipy.stats.gamma.pdf: the exponential of the log density, inside the support."""
    return np.exp(stats.gamma.logpdf(x, a, loc, scale))


def beta_pdf(x, a, b, loc=0, scale=1):
    """scipy.stats.beta.pdf: the exponential of the log density, inside the support."""
    return np.exp(stats.beta.logpdf(x, a, b, loc, scale))


def poisson_pmf(k, mu, loc=0):
    """scipy.stats.poisson.pmf: the exponential of the log mass."""
    return np.exp(stats.poisson.logpmf(k, mu, loc))


def multivariate_normal_pdf(x, mean=None, cov=1):
    """scipy.stats.multivariate_normal.pdf: the exponential of the log density."""
    return np.exp(stats.multivariate_normal.logpdf(x, mean, cov))


DEFINED = {stats.t.pdf: t_pdf, stats.gamma.pdf: gamma_pdf, stats.beta.pdf: beta_pdf,
           stats.poisson.pmf: poisson_pmf, stats.multivariate_normal.pdf: multivariate_normal_pdf}

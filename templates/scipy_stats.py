"""scipy.stats: the log densities (and the normal's density and distribution function) of norm,
t, gamma, beta and multivariate_normal, and poisson's log mass, in every argument but an
integer one; the distribution functions (cdf, logcdf) of t, gamma, beta and poisson in all but
the shape parameters and integers. The densities t.pdf, gamma.pdf, beta.pdf and poisson.pmf
are the exponentials of these (s2s_ad/scipy_definitions.py).

Loaded only once scipy.stats has been imported (rules.OPTIONAL_PACKAGES). `stats.norm` is an
object and `stats.norm.logpdf` a method made anew at each access: a rule keyed by one such
method is found for every other, as bound methods of one object and one function are equal.
Each is elementwise in its arguments, declared once by its partial derivatives in terms of the
incoming derivative `g` (rules.elementwise), with z = (x - loc) / scale."""
import numpy as np
from scipy import special, stats

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, elementwise, non_differentiable, tangent, transposes
from s2s_ad.runtime import (contract_covariance, divide_or_zero, expand_covariance,
                            gaussian_centered, point_size, refuse_derivative, unbroadcast)


@elementwise(stats.norm.logpdf)
def norm_logpdf(g, y, x, loc=0, scale=1):
    d[x] = -g * (x - loc) / (scale * scale)
    d[loc] = g * (x - loc) / (scale * scale)
    d[scale] = g * (((x - loc) / scale) ** 2 - 1) / scale


@elementwise(stats.norm.pdf)
def norm_pdf(g, y, x, loc=0, scale=1):
    d[x] = -g * y * (x - loc) / (scale * scale)
    d[loc] = g * y * (x - loc) / (scale * scale)
    d[scale] = g * y * (((x - loc) / scale) ** 2 - 1) / scale


@elementwise(stats.norm.cdf)
def norm_cdf(g, y, x, loc=0, scale=1):
    d[x] = g * np.exp(-((x - loc) / scale) ** 2 / 2) / (np.sqrt(2 * np.pi) * scale)
    d[loc] = -g * np.exp(-((x - loc) / scale) ** 2 / 2) / (np.sqrt(2 * np.pi) * scale)
    d[scale] = -g * np.exp(-((x - loc) / scale) ** 2 / 2) * (x - loc) / (np.sqrt(2 * np.pi) * scale * scale)


# the density over the distribution function as exp of a difference of logs: finite far into
# the lower tail, where both are below the smallest float
@elementwise(stats.norm.logcdf)
def norm_logcdf(g, y, x, loc=0, scale=1):
    d[x] = g * np.exp(-((x - loc) / scale) ** 2 / 2 - y) / (np.sqrt(2 * np.pi) * scale)
    d[loc] = -g * np.exp(-((x - loc) / scale) ** 2 / 2 - y) / (np.sqrt(2 * np.pi) * scale)
    d[scale] = -g * np.exp(-((x - loc) / scale) ** 2 / 2 - y) * (x - loc) / (np.sqrt(2 * np.pi) * scale * scale)


@elementwise(stats.t.logpdf)
def t_logpdf(g, y, x, df, loc=0, scale=1):
    d[x] = -g * (df + 1) * (x - loc) / (df * scale * scale + (x - loc) ** 2)
    d[df] = g * (special.digamma((df + 1) / 2) - special.digamma(df / 2) - 1 / df - np.log1p(((x - loc) / scale) ** 2 / df) + (df + 1) * (x - loc) ** 2 / (df * (df * scale * scale + (x - loc) ** 2))) / 2
    d[loc] = g * (df + 1) * (x - loc) / (df * scale * scale + (x - loc) ** 2)
    d[scale] = g * ((df + 1) * (x - loc) ** 2 / (df * scale * scale + (x - loc) ** 2) - 1) / scale


@elementwise(stats.gamma.logpdf)
def gamma_logpdf(g, y, x, a, loc=0, scale=1):
    """Inside the support, x > loc."""
    d[x] = g * ((a - 1) / (x - loc) - 1 / scale)
    d[a] = g * (np.log((x - loc) / scale) - special.digamma(a))
    d[loc] = -g * ((a - 1) / (x - loc) - 1 / scale)
    d[scale] = g * ((x - loc) / scale - a) / scale


@elementwise(stats.beta.logpdf)
def beta_logpdf(g, y, x, a, b, loc=0, scale=1):
    """Inside the support, loc < x < loc + scale."""
    d[x] = g * ((a - 1) / (x - loc) - (b - 1) / (loc + scale - x))
    d[a] = g * (np.log((x - loc) / scale) - special.digamma(a) + special.digamma(a + b))
    d[b] = g * (np.log((loc + scale - x) / scale) - special.digamma(b) + special.digamma(a + b))
    d[loc] = -g * ((a - 1) / (x - loc) - (b - 1) / (loc + scale - x))
    d[scale] = g * ((b - 1) * (x - loc) / (scale * (loc + scale - x)) - a / scale)


@elementwise(stats.poisson.logpmf)
def poisson_logpmf(g, y, k, mu, loc=0):
    """In mu; the counts k and the shift loc are integers: a derivative reaching them is
    refused. At k = loc the slope in mu is -1, for mu = 0 too (0 log 0 taken as 0)."""
    d[k] = refuse_derivative(g, "scipy.stats.poisson.logpmf(k, mu, loc) with respect to k")
    d[mu] = g * (divide_or_zero(k - loc, mu) - 1)
    d[loc] = refuse_derivative(g, "scipy.stats.poisson.logpmf(k, mu, loc) with respect to loc")


# The distribution functions: in x the slope is the density (exp of the log density, less y
# for logcdf: finite far into the lower tail), in loc its opposite, in scale its opposite times
# the standardized x. The shape parameters (df, a, b) have no closed form: refused.
@elementwise(stats.t.cdf)
def t_cdf(g, y, x, df, loc=0, scale=1):
    """In x, loc and scale; a derivative reaching df is refused."""
    d[x] = g * np.exp(stats.t.logpdf(x, df, loc, scale))
    d[df] = refuse_derivative(g, "scipy.stats.t.cdf(x, df, ...) with respect to df")
    d[loc] = -g * np.exp(stats.t.logpdf(x, df, loc, scale))
    d[scale] = -g * np.exp(stats.t.logpdf(x, df, loc, scale)) * (x - loc) / scale


@elementwise(stats.t.logcdf)
def t_logcdf(g, y, x, df, loc=0, scale=1):
    """In x, loc and scale; a derivative reaching df is refused."""
    d[x] = g * np.exp(stats.t.logpdf(x, df, loc, scale) - y)
    d[df] = refuse_derivative(g, "scipy.stats.t.logcdf(x, df, ...) with respect to df")
    d[loc] = -g * np.exp(stats.t.logpdf(x, df, loc, scale) - y)
    d[scale] = -g * np.exp(stats.t.logpdf(x, df, loc, scale) - y) * (x - loc) / scale


@elementwise(stats.gamma.cdf)
def gamma_cdf(g, y, x, a, loc=0, scale=1):
    """Inside the support, x > loc; a derivative reaching a is refused."""
    d[x] = g * np.exp(stats.gamma.logpdf(x, a, loc, scale))
    d[a] = refuse_derivative(g, "scipy.stats.gamma.cdf(x, a, ...) with respect to a")
    d[loc] = -g * np.exp(stats.gamma.logpdf(x, a, loc, scale))
    d[scale] = -g * np.exp(stats.gamma.logpdf(x, a, loc, scale)) * (x - loc) / scale


@elementwise(stats.gamma.logcdf)
def gamma_logcdf(g, y, x, a, loc=0, scale=1):
    """Inside the support, x > loc; a derivative reaching a is refused."""
    d[x] = g * np.exp(stats.gamma.logpdf(x, a, loc, scale) - y)
    d[a] = refuse_derivative(g, "scipy.stats.gamma.logcdf(x, a, ...) with respect to a")
    d[loc] = -g * np.exp(stats.gamma.logpdf(x, a, loc, scale) - y)
    d[scale] = -g * np.exp(stats.gamma.logpdf(x, a, loc, scale) - y) * (x - loc) / scale


@elementwise(stats.beta.cdf)
def beta_cdf(g, y, x, a, b, loc=0, scale=1):
    """Inside the support, loc < x < loc + scale; a derivative reaching a or b is refused."""
    d[x] = g * np.exp(stats.beta.logpdf(x, a, b, loc, scale))
    d[a] = refuse_derivative(g, "scipy.stats.beta.cdf(x, a, b, ...) with respect to a")
    d[b] = refuse_derivative(g, "scipy.stats.beta.cdf(x, a, b, ...) with respect to b")
    d[loc] = -g * np.exp(stats.beta.logpdf(x, a, b, loc, scale))
    d[scale] = -g * np.exp(stats.beta.logpdf(x, a, b, loc, scale)) * (x - loc) / scale


@elementwise(stats.beta.logcdf)
def beta_logcdf(g, y, x, a, b, loc=0, scale=1):
    """Inside the support, loc < x < loc + scale; a derivative reaching a or b is refused."""
    d[x] = g * np.exp(stats.beta.logpdf(x, a, b, loc, scale) - y)
    d[a] = refuse_derivative(g, "scipy.stats.beta.logcdf(x, a, b, ...) with respect to a")
    d[b] = refuse_derivative(g, "scipy.stats.beta.logcdf(x, a, b, ...) with respect to b")
    d[loc] = -g * np.exp(stats.beta.logpdf(x, a, b, loc, scale) - y)
    d[scale] = -g * np.exp(stats.beta.logpdf(x, a, b, loc, scale) - y) * (x - loc) / scale


# d/dmu P(X <= k) = -P(X = k): the mass at k, less y for logcdf
@elementwise(stats.poisson.cdf)
def poisson_cdf(g, y, k, mu, loc=0):
    """In mu; a derivative reaching the counts k or the shift loc is refused."""
    d[k] = refuse_derivative(g, "scipy.stats.poisson.cdf(k, mu, loc) with respect to k")
    d[mu] = -g * np.exp(stats.poisson.logpmf(np.floor(k), mu, loc))
    d[loc] = refuse_derivative(g, "scipy.stats.poisson.cdf(k, mu, loc) with respect to loc")


@elementwise(stats.poisson.logcdf)
def poisson_logcdf(g, y, k, mu, loc=0):
    """In mu; a derivative reaching the counts k or the shift loc is refused."""
    d[k] = refuse_derivative(g, "scipy.stats.poisson.logcdf(k, mu, loc) with respect to k")
    d[mu] = -g * np.exp(stats.poisson.logpmf(np.floor(k), mu, loc) - y)
    d[loc] = refuse_derivative(g, "scipy.stats.poisson.logcdf(k, mu, loc) with respect to loc")


# y = -(d log 2 pi + log det S + r^T S^-1 r) / 2 per point r = x - mean, u = S^-1 r: -u in x,
# u in mean, (u u^T - S^-1) / 2 in S (symmetric; allow_singular is left out of the rule, so
# allow_singular=True is refused where it is written). S is cov as a matrix (a number c is c I,
# a vector its diagonal): the derivative in S is contracted back to cov's shape.
@adjoint(stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf(y, x, mean=None, cov=1):
    """cov a number, a vector (the diagonal) or a (d, d) matrix, read as symmetric: its
    derivative is the symmetric one, as autograd's (SciPy reads one triangle);
    allow_singular=True is refused."""
    s = expand_covariance(cov, np.ndim(cov), point_size(x, cov))
    u = np.linalg.solve(s, gaussian_centered(x, mean, s).T).T
    g = np.reshape(d[y], (-1, 1))
    d[x] = np.reshape(-g * u, np.shape(x))
    d[mean] = unbroadcast(np.sum(g * u, axis=0), mean)
    d[cov] = contract_covariance((np.matmul(u.T, g * u) - np.sum(d[y]) * np.linalg.inv(s)) / 2, np.ndim(cov), point_size(x, cov))


@tangent(stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf_tangent(y, x, mean=None, cov=1):
    """cov a number, a vector (the diagonal) or a (d, d) matrix, read as symmetric: its
    derivative is the symmetric one, as autograd's (SciPy reads one triangle);
    allow_singular=True is refused."""
    s = expand_covariance(cov, np.ndim(cov), point_size(x, cov))
    ds = expand_covariance(d[cov], np.ndim(cov), point_size(x, cov))
    u = np.linalg.solve(s, gaussian_centered(x, mean, s).T).T
    d[y] = np.reshape(-np.sum(u * gaussian_centered(d[x], d[mean], s), axis=-1), np.shape(y)) + np.reshape(np.sum(u * np.matmul(u, ds), axis=-1) / 2, np.shape(y)) - np.sum(np.linalg.inv(s) * ds) / 2


# ---------------------------------------------------------------------------------------------
# the helper the rules above call, with rules of its own (second order): linear in x and mean
# together; cov gives only the size of a point
# ---------------------------------------------------------------------------------------------
@adjoint(runtime.gaussian_centered)
def gaussian_centered_(r, x, mean, cov):
    d[x] = np.reshape(d[r], np.shape(x))
    d[mean] = -unbroadcast(d[r], mean)


@tangent(runtime.gaussian_centered)
def gaussian_centered_tangent(r, x, mean, cov):
    d[r] = gaussian_centered(d[x], d[mean], cov)


@transposes(runtime.expand_covariance, runtime.contract_covariance)
def expand_covariance_(s, cov, ndim, size):
    d[cov] = contract_covariance(d[s], ndim, size)


non_differentiable(runtime.point_size)

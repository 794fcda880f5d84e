"""np.pad: linear in the array and the constant values together. Reverse mode sends each entry of
the padded adjoint back to the entry it holds (the interior, or the entry an 'edge', 'reflect',
'symmetric' or 'wrap' band copies) and the bands' sums to the constant values; forward mode pads
the tangent the same way."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, non_differentiable, supports_complex, tangent, transposes
from s2s_ad.runtime import pad_value_grad, pad_values, repad, unpad


@adjoint(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0, **options):
    """mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap' (reflect_type='even'); the
    modes that compute the padding from the values ('linear_ramp', 'maximum', 'mean', 'median',
    'minimum'), written as a constant, through their definition (definitions.pad_from_values;
    ties in 'maximum'/'minimum'/'median' as np.max and np.median share them); 'empty' as
    'constant' (its entries depend on no input); a callable mode and reflect_type='odd' are
    refused."""
    d[array] = unpad(d[y], array, pad_width, mode)
    d[constant_values] = pad_value_grad(d[y], array, pad_width, constant_values)


@tangent(np.pad)
def pad_tangent(y, array, pad_width, mode="constant", constant_values=0, **options):
    d[y] = repad(d[array], array, pad_width, mode) + pad_values(d[constant_values], array, pad_width)


@transposes(runtime.unpad, runtime.repad, complex=True)
def unpad_(r, g, array, pad_width, mode="constant"):
    d[g] = repad(d[r], array, pad_width, mode)


non_differentiable(runtime.pad_source_index)
supports_complex(np.pad)

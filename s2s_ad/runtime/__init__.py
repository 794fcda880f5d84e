"""What generated derivative code calls when it runs, in modules named for their jobs.

Generated code, the rule templates and the emitters name a helper through this package
(`runtime.unbroadcast`, `from s2s_ad.runtime import unbroadcast`), not through the module that
defines it, so that helpers can move between modules. Nothing here imports from the
transformer: `--standalone` copies these helpers into written modules, which then run without
s2s_ad.
"""
from .arrays import (
    broadcast_to_like, entry_before, for_its_shape, own_copy, ones_like, real_like, shape_of, shaped_like,
    read_as_array, snapshot, through_cast, unbroadcast, zeros_like)
from .checks import (
    COMPLEX_CONTEXT, COMPLEX_HINT, check_backends, check_complex_seen, check_copied_as_a_copy,
    check_attribute_owner, check_differentiable, check_entries_rebind, check_fresh_array,
    check_method_owner,
    check_bound, check_not_mapping, check_not_view, check_rebinds, check_view_spared, float_arrays, holds_complex, is_complex, other_entries, same_array,
    written_through)
from .containers import (
    CONVERTED_KINDS, ConvertedDict, ConvertedList, ConvertedTuple, GradDict, GradList, GradTuple,
    as_adjoint, container_scatter, converted, default_grad, drop_entry,
    entry_grad, entry_read, entry_tangent, field_grad, field_tangent, insert_entry, inserted_at,
    record_entries, record_fields, make_record, as_field_list, deep_copy, with_entry,
    without_entry, entry_replaced,
    popped_from, put_entry, truncate, joined, joined_tangent, leading_part, trailing_part,
    placed_first, placed_after)
from .bessel import i1
from .counting import (
    bin_count, bin_dtype, bin_spread, bin_totals, unique_extras, unique_index)
from .decompositions import (
    hermitian_read, hermitian_read_grad, inverse_gaps, svd_cotangents, svd_cotangents_back,
    svd_factors, svd_factors_tangent, svd_result_tangent, svd_tangent, symmetric_from,
    symmetric_from_grad)
from .differences import (
    pair_means, reediff1d, spacing_of, trapezoid_widths, unediff1d, unit_differences,
    unit_differences_transposed,
    unpair_means, unspacing, uses_dx, widths_of_dx)
from .eig import COMPLEX_EIGENVALUES, eig_factors, real_spectrum, real_spectrum_checked
from .fourier import angle_unit, conj, conj_sign, fit_to, irfft_grad, rfft_grad, transformed_axes
from .einsum import (
    einsum_form, einsum_grad, einsum_grad_swap, einsum_grad_tangent, einsum_swap, einsum_tangent,
    inner_subscripts, kron_parts, tensordot_subscripts)
from .extrema import (add_extremum_share, extremum_gather, extremum_mask, extremum_share, highest_of, lowest_of,
                      pick_grad, pick_tangent,
                      position_by_key, tie_share, took_default, unpick)
from .indexing import (
    add_at, along_axis_index, element, entries_at, index_range, item_index, last_writes,
    overwrite_at, rezipped, scatter, scatter_by_range, scatter_distinct, scatter_entries, sort_index, sorted_grad, sorted_order,
    sorted_tangent, take_index, unzipped, zero_at, zipped)
from .in_place import stored_as, through_update, updated_in_place
from .insertion import insert_part_grad, insert_place
from .interpolation import (
    interp_values, outside, slopes_at, uninterp, unslope)
from .joins import (
    concatenator_part_grad, concatenator_place, concatenator_tangent, rejoin, unconcatenate,
    entries_of, from_entries, resequence, sequenced, unjoin, unsequence, unstack)
from .layout import outer_operand, rollaxis_order
from .least_squares import (
    lstsq_tangent, pinv_tangent, residual_gather, residual_spread)
from .linalg import (
    cholesky_grad, cholesky_tangent, column_shape, dot_grad_a, dot_grad_b, lower_half,
    contracted_axes, tensordot_grad_a, tensordot_grad_b,
    lower_oriented, matmul_grad_a, matmul_grad_b)
from .meshgrids import meshgrid_tangent, remesh, remesh_all, unmesh, unmesh_all
from .matrix_chains import (
    block_diagonal_sum, dual_block, multi_dot_grads, multi_dot_grads_tangent, multi_dot_tangent,
    upper_right)
from .markers import no_grad, stop_gradient
from .norms import (
    cond_ord, norm_curvature, norm_direction, norm_direction_tangent, norm_grad, norm_slope,
    vector_norm_layout)
from .order_statistics import (
    arrangement_index, nan_count, nan_extremum_mask, quantile_weights, refuse_q_derivative,
    weighted_reduce, weighted_unreduce)
from .padding import pad_value_grad, pad_values, repad, unpad
from .qr import (
    qr_cotangents, qr_cotangents_back, qr_factors, qr_factors_tangent, qr_result_tangent,
    qr_tangent)
from .polynomials import (
    poly_derivative, polyval_grad_p, refuse_stripped_roots, stripped_coefficients,
    unpoly_derivative)
from .reductions import (
    average_weights, divide_or_zero, prod_grad, prod_hvp, prod_others, reduction_count, spread,
    uncumsum, unreduce, unweight)
from .cumulative import (
    drop_initial, exclusive_products, lanes, running_source, scan, scan_back, shift_along,
    unshift_along, with_initial)
from .selection import choice_index, choice_taken, choose_grad, chosen, select_grad
from .seeds import (GRAD, HAS_AUX, HESSIAN, HVP, ScalarSeed, callee_gradient, gradient_like,
                    seed_like, tree_gradient)
from .shapes import (
    across_linspace, linspace_fraction, rediff, reshape_as, transpose_by, undiag, undiagonal,
    undiff, unrepeat, unreshape, untile, untranspose)
from .signals import full_signal, signal_window
from .sources import compress_index, delete_index, extract_index, pad_source_index
from .special import (
    contract_covariance, exp_shares, exp_weights, expand_covariance, expand_reduced,
    gaussian_centered, point_size, refuse_derivative, sinc_curvature, sinc_slope, sinc_third)
from .vector_products import cross_grad_a, cross_grad_b
from .tangents import broadcast_like, tangent_cast, tangent_copy, tangent_out, zero_tangent

"""A numpy stand-in for the part of torch that tools/peers/torch_gemm.py's operand code calls,
so that host tests can build a case's operands, scales and offsets and run its GEMM without torch
or a GPU. The GEMM calls follow PyTorch 2.11's contracts as read from its sources, checks and
pointer arithmetic alike, so that a layout the real call would refuse, or read from the wrong
place, fails here too:

- torch._scaled_mm, rowwise (aten/src/ATen/native/cuda/ScaledBlas.cpp): a row-major, b
  column-major, K and N multiples of 16, scale_a [M, 1] and scale_b [1, N] contiguous FP32, or
  one FP32 scalar each (tensorwise).
- torch._scaled_grouped_mm (GroupedBlas.cpp, GroupedMMUtils.h, GroupMMCommon.cuh): E4M3 only,
  mat_a not transposed, mat_b transposed, mat_a's last and mat_b's last two dimensions multiples
  of 16, offs (int32, 1-D) iff a 2D operand, FP32 scales checked as _check_scales_fp8_rowwise
  checks them (2D operand: 1-D contiguous, its rows times the groups in 2D by 2D; 3D operand:
  [G, cols], stride(1) == 1); each group reads scale_a at offs[g - 1] and scale_b at
  g·stride(0) (2D by 3D), or scale_a at g·M and scale_b at g·N (2D by 2D, whose groups' K must be
  positive multiples of 16 bytes); rows past offs[-1] are left unwritten (NaN here).
- torch._grouped_mm (GroupedBlas.cpp, GroupMMCommon.cuh): BF16, either orientation with
  16-byte aligned strides, the same grouping without scales.

Storage is float32 for every floating dtype (BF16 and FP8 values are not rounded: the fake checks
layouts, not arithmetic); the 1-byte dtypes (FP8, uint8) share it, so that a .view() between
them keeps the values, and .view() between float32 and int32 reinterprets the bits as torch
does. torch.empty fills with NaN, so that whatever is never written shows.
"""

import types

import numpy as np

__version__ = "fake"


class dtype:
    def __init__(self, name, itemsize, storage=np.float32):
        self.name, self.itemsize, self.storage = name, itemsize, storage

    def __repr__(self):
        return f"fake_torch.{self.name}"


float32 = dtype("float32", 4)
bfloat16 = dtype("bfloat16", 2)
float8_e4m3fn = dtype("float8_e4m3fn", 1)
float8_e5m2 = dtype("float8_e5m2", 1)
uint8 = dtype("uint8", 1)
int32 = dtype("int32", 4, np.int32)
bool_ = dtype("bool", 1, np.bool_)
FLOAT8 = (float8_e4m3fn, float8_e5m2)


def _array(value):
    return value.array if isinstance(value, Tensor) else value


class Tensor:
    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype
        self.device = "cpu"

    @property
    def shape(self):
        return tuple(self.array.shape)

    def dim(self):
        return self.array.ndim

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim=None):
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]

    def numel(self):
        return self.array.size

    def is_contiguous(self):
        return self.array.flags.c_contiguous

    def float(self):
        return self if self.dtype is float32 else Tensor(self.array.astype(np.float32), float32)

    def to(self, dtype):
        return Tensor(self.array.astype(dtype.storage), dtype)

    def abs(self):
        return Tensor(np.abs(self.array), self.dtype)

    def abs_(self):
        np.abs(self.array, out=self.array)
        return self

    def amax(self, dim=None):
        return Tensor(np.asarray(self.array.max(axis=dim)), self.dtype)

    def all(self):
        return Tensor(np.asarray(self.array.all()), bool_)

    def mul_(self, other):
        np.multiply(self.array, _array(other), out=self.array)
        return self

    def clamp_(self, low, high):
        np.clip(self.array, low, high, out=self.array)
        return self

    def reciprocal(self):
        return Tensor(1 / self.array, self.dtype)

    def view(self, *args):
        if len(args) == 1 and isinstance(args[0], dtype):
            target = args[0]
            if target.itemsize != self.dtype.itemsize:
                raise RuntimeError(f"view {self.dtype} as {target}: another element size")
            if target.storage is self.array.dtype.type:
                return Tensor(self.array, target)
            return Tensor(self.array.view(target.storage), target)
        if not self.array.flags.c_contiguous:
            raise RuntimeError("view size is not compatible with input tensor's size and stride")
        shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        return Tensor(self.array.reshape(shape), self.dtype)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        return Tensor(self.array.reshape(shape), self.dtype)

    def expand(self, *sizes):
        return Tensor(np.broadcast_to(self.array, sizes), self.dtype)

    def contiguous(self):
        if self.array.flags.c_contiguous:
            return self
        return Tensor(np.ascontiguousarray(self.array), self.dtype)

    def transpose(self, dim0, dim1):
        return Tensor(np.swapaxes(self.array, dim0, dim1), self.dtype)

    def t(self):
        return self.transpose(0, 1)

    def narrow(self, dim, start, length):
        index = [slice(None)] * self.dim()
        index[dim] = slice(start, start + length)
        return self[tuple(index)]

    def __getitem__(self, index):
        return Tensor(self.array[index], self.dtype)

    def __setitem__(self, index, value):
        self.array[index] = _array(value)

    def __matmul__(self, other):
        return Tensor(self.array @ other.array, float32)

    def __sub__(self, other):
        return Tensor(self.array - _array(other), self.dtype)

    def __truediv__(self, other):
        return Tensor(self.array / _array(other), self.dtype)

    def __rtruediv__(self, other):
        with np.errstate(divide="ignore", over="ignore"):
            return Tensor(np.float32(other) / self.array, self.dtype)

    def __gt__(self, other):
        return Tensor(self.array > _array(other), bool_)

    def __and__(self, other):
        result = self.array & _array(other)
        return Tensor(result, self.dtype)

    def __bool__(self):
        return bool(self.array)

    def __float__(self):
        return float(self.array)


class Generator:
    def __init__(self, device=None):
        self._rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        self._rng = np.random.default_rng(seed)
        return self


def _shape(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args


def randn(*shape, generator, dtype, device=None):
    return Tensor(generator._rng.standard_normal(shape).astype(np.float32), dtype)


def zeros(*shape, dtype=float32, device=None):
    return Tensor(np.zeros(_shape(shape), dtype=dtype.storage), dtype)


def empty(*shape, dtype=float32, device=None):
    return Tensor(np.full(_shape(shape), np.nan, dtype=dtype.storage), dtype)


def ones_like(tensor):
    return Tensor(np.ones_like(tensor.array), tensor.dtype)


def full_like(tensor, value):
    return Tensor(np.full_like(tensor.array, value), tensor.dtype)


def where(condition, a, b):
    return Tensor(np.where(condition.array, a.array, b.array), a.dtype)


def isfinite(tensor):
    return Tensor(np.isfinite(tensor.array), bool_)


def tensor(values, dtype, device=None):
    return Tensor(np.array(values, dtype=dtype.storage), dtype)


def cat(tensors, dim=0):
    return Tensor(np.concatenate([t.array for t in tensors], axis=dim), tensors[0].dtype)


def matmul(a, b):
    return Tensor(a.array @ b.array, a.dtype)


linalg = types.SimpleNamespace(
    vector_norm=lambda t: Tensor(np.asarray(np.linalg.norm(t.array.astype(np.float64))),
                                 float32))


def _check(condition, message):
    if not condition:
        raise RuntimeError(message)


def _transposed(mat):
    """GroupedMMUtils.h's check_valid_strides_and_return_transposed."""
    strides, sizes = mat.stride(), mat.shape
    alignment = 16 // mat.dtype.itemsize
    if strides[-2] == 1 and strides[-1] >= max(1, sizes[-2]):
        _check(strides[-1] % alignment == 0, "strides should be multiple of 16 bytes")
        return True
    if strides[-1] == 1 and strides[-2] >= max(1, sizes[-1]):
        _check(strides[-2] % alignment == 0, "strides should be multiple of 16 bytes")
        return False
    raise RuntimeError(f"Invalid strides/sizes, got {strides} for strides and {sizes} for sizes")


def _check_rowwise_scale(mat, scale, dim, multiplier):
    """GroupedBlas.cpp's _check_scales_fp8_rowwise."""
    _check(scale.dtype is float32, "scales must be float32")
    if mat.dim() == 2:
        _check(scale.dim() == 1, "scale must be a 1D tensor")
        _check(scale.is_contiguous(), "scale must be contiguous")
        _check(scale.size(0) == mat.size(dim) * multiplier,
               "scale must have the same length as mat")
    else:
        _check(scale.dim() == 2, "scale must be a 2D tensor")
        _check(scale.stride(1) == 1, "scale must be contiguous in the last dimension")
        _check(scale.size(0) == mat.size(0), "scale must have the same batch dimension as mat")
        _check(scale.size(1) == mat.size(1 + dim), "scale must have the same first dimension")


def _group_bounds(offs):
    ends = [int(e) for e in offs.array]
    return list(zip([0] + ends[:-1], ends))


def _grouped(mat_a, mat_b, offs, alignment, scale_a=None, scale_b=None):
    """GroupMMCommon.cuh's groups (2D by 3D: rows; 2D by 2D: K), each scaled where the kernel
    reads its scales; rows of a 2D by 3D output past offs[-1] are left NaN."""
    a, b = mat_a.array.astype(np.float64), mat_b.array.astype(np.float64)
    if mat_b.dim() == 3:
        out = np.full((a.shape[0], b.shape[-1]), np.nan)
        for group, (start, end) in enumerate(_group_bounds(offs)):
            _check(end >= start, "expected offsets to be greater or equal 0")
            product = a[start:end] @ b[group]
            if scale_a is not None:
                product *= scale_a.array[start:end, None]  # scale_A + offs[g - 1]
                product *= scale_b.array[group][None, :]  # scale_B + g * stride(0)
            out[start:end] = product
        return out
    m, n = a.shape[0], b.shape[1]
    out = np.full((offs.size(0), m, n), np.nan)
    a_row_major, b_row_major = not _transposed(mat_a), not _transposed(mat_b)
    for group, (start, end) in enumerate(_group_bounds(offs)):
        delta = end - start
        _check(delta > 0 or (not a_row_major and b_row_major), "expected offsets > 0")
        if a_row_major or not b_row_major:  # K contiguous in an input: its TMA rows
            _check(delta % alignment == 0, "expected input tensor dynamic dimension byte size "
                   "to be non-negative multiple of 16")
        product = a[:, start:end] @ b[start:end]
        if scale_a is not None:
            product *= scale_a.array[group * m:(group + 1) * m, None]  # scale_A + g * M
            product *= scale_b.array[group * n:(group + 1) * n][None, :]  # scale_B + g * N
        out[group] = product
    return out


def _check_offs(mat_a, mat_b, offs):
    two_d = mat_a.dim() == 2 or mat_b.dim() == 2
    _check((offs is not None) == two_d, "Have to provide offsets if there is a 2d matrix")
    if offs is not None:
        _check(offs.dim() == 1 and offs.dtype is int32, "offs has to be 1D int32")
        _check(offs.size(0) < 1024, "Can't process more than 1024 groups")
        if mat_b.dim() == 3:
            _check(offs.size(0) == mat_b.size(0), "matrix batch sizes have to match")


def _scaled_grouped_mm(mat_a, mat_b, scale_a, scale_b, offs=None, bias=None, scale_result=None,
                       out_dtype=None, use_fast_accum=False):
    _check(not _transposed(mat_a), "Expected mat1 to not be transposed")
    _check(_transposed(mat_b), "Expected mat2 to be transposed")
    _check(mat_a.dim() == 2 and mat_b.dim() in (2, 3), "the fake runs 2D by 3D and 2D by 2D")
    if mat_b.dim() == 3:
        _check(mat_a.size(-1) == mat_b.size(-2), "contraction dimension must match")
    _check(mat_a.size(-1) % 16 == 0, "Expected trailing dimension of mat_a divisible by 16")
    _check(mat_b.size(-2) % 16 == 0 and mat_b.size(-1) % 16 == 0,
           "Expected mat_b shape to be divisible by 16")
    _check(bias is None and scale_result is None, "Bias and scale result not supported")
    _check_offs(mat_a, mat_b, offs)
    multiplier = offs.size(0) if mat_b.dim() == 2 else 1
    _check_rowwise_scale(mat_a, scale_a, 0, multiplier)
    _check_rowwise_scale(mat_b, scale_b, 1, multiplier)
    _check((out_dtype or bfloat16) is bfloat16, "Only bf16 output for grouped gemm")
    _check(mat_a.dtype is float8_e4m3fn and mat_b.dtype is float8_e4m3fn,
           "Expected mat_a and mat_b to be Float8_e4m3 matrices")
    return Tensor(_grouped(mat_a, mat_b, offs, 16, scale_a, scale_b).astype(np.float32),
                  bfloat16)


def _grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
    _check(mat_a.dtype is bfloat16 and mat_b.dtype is bfloat16, "the fake runs BF16")
    _transposed(mat_a), _transposed(mat_b)  # valid strides, either orientation
    _check(mat_a.dim() == 2 and mat_b.dim() in (2, 3), "the fake runs 2D by 3D and 2D by 2D")
    if mat_b.dim() == 3:
        _check(mat_a.size(-1) == mat_b.size(-2), "contraction dimension must match")
    _check(bias is None, "Bias not supported yet")
    _check_offs(mat_a, mat_b, offs)
    return Tensor(_grouped(mat_a, mat_b, offs, 8).astype(np.float32), bfloat16)


def _scaled_mm(a, b, scale_a, scale_b, out_dtype=None, use_fast_accum=False):
    _check(a.dtype in FLOAT8 and b.dtype in FLOAT8, "expected FP8 operands")
    _check(not (a.dtype is float8_e5m2 and b.dtype is float8_e5m2), "e5m2 x e5m2 refused")
    _check(a.stride(-1) == 1 and b.stride(0) == 1,
           "Only multiplication of row-major and column-major matrices is supported by cuBLASLt")
    _check(a.size(1) % 16 == 0 and b.size(0) % 16 == 0 and b.size(1) % 16 == 0,
           "K and N must be multiples of 16")
    m, n = a.size(0), b.size(1)
    rowwise = (scale_a.shape == (m, 1) and scale_b.shape == (1, n) and scale_a.is_contiguous()
               and scale_b.is_contiguous())
    tensorwise = scale_a.numel() == 1 and scale_b.numel() == 1
    _check(scale_a.dtype is float32 and scale_b.dtype is float32 and (rowwise or tensorwise),
           "Invalid scaling configuration: scale_a should be (M, 1) and scale_b should be "
           "(1, N), and both should be contiguous")
    product = a.array.astype(np.float64) @ b.array.astype(np.float64)
    product *= scale_a.array.reshape(-1, 1) if rowwise else float(scale_a.array.reshape(()))
    product *= scale_b.array.reshape(1, -1) if rowwise else float(scale_b.array.reshape(()))
    return Tensor(product.astype(np.float32), bfloat16)

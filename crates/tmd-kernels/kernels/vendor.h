/*
 * vendor.h: the one place where OpenCL C and CUDA C differ.
 *
 * Every other kernel file is written once against these macros, in the manner of hashcat's
 * inc_vendor.h: address-space and function qualifiers, work-item ids, the math built-ins the
 * kernels may use (all correctly rounded in IEEE binary32/binary64: + - * / sqrt fma ldexp
 * floor), 64-bit multiply-high and add-with-carry. Host facts arrive as -D options: the layout
 * constants of tmd_kernels::layout, which every program is built with and which this header
 * requires (an #error names a missing one).
 *
 * Floating-point contraction is off on both sides: OpenCL by the pragma below, CUDA by
 * --fmad=false from the host (tmd_kernels::cuda_options). The host also passes
 * -cl-fp32-correctly-rounded-divide-sqrt to OpenCL, so that float division and sqrt are
 * correctly rounded as in Rust; double ones always are.
 */
#ifndef TMD_VENDOR_H
#define TMD_VENDOR_H

#if defined(__OPENCL_VERSION__)

#define TMD_OPENCL 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#pragma OPENCL FP_CONTRACT OFF
/* Clang reports a `#pragma unroll` it could not honour as a warning ("loop not unrolled"),
 * which PoCL prints on the user's terminal; the unrolling is a hint, the results are the same. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#define KERNEL_FQ __kernel
#define KERNEL_MAX_REGISTERS(n)
#define GLOBAL_AS __global
#define CONSTANT_AS __constant
#define DEVICE_FN static inline
/* A function the compiler should not inline (large bodies called from several places: inlining
 * them everywhere made NVRTC take many minutes). Same IEEE operations either way. */
#define DEVICE_FN_NOINLINE static
#define GLOBAL_ID0 ((ulong)get_global_id(0))
#define GLOBAL_SIZE0 ((ulong)get_global_size(0))
#define LOCAL_ID0 ((uint)get_local_id(0))
#define GROUP_ID0 ((ulong)get_group_id(0))
#define LOCAL_SIZE0 ((uint)get_local_size(0))
/* An array shared by a work-group (declared in a kernel's body), and the barrier that orders
 * its accesses. */
#define LOCAL_ARRAY(type, name, len) __local type name[len]
#define LOCAL_AS __local
#define LOCAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)

typedef ulong u64;
typedef uint u32;
typedef long i64;
typedef int i32;

#define TMD_FMA(a, b, c) fma((a), (b), (c))
/* On a CPU device with a 128-bit integer (PoCL on x86-64 or AArch64), the 128-bit product
 * gives the high half in one instruction; PoCL 3.1's mul_hi(ulong) takes four 32-bit multiplies
 * (phase 1 of I0 17% faster on PoCL). GPU compilers keep the built-in. */
#if defined(__SIZEOF_INT128__) && (defined(__x86_64__) || defined(__aarch64__))
#define TMD_MUL_HI64(a, b) ((u64)(((unsigned __int128)(u64)(a) * (u64)(b)) >> 64))
#else
#define TMD_MUL_HI64(a, b) mul_hi((u64)(a), (u64)(b))
#endif
#define TMD_ATOMIC_INC(p) atomic_inc(p)
/* 64-bit atomics (cl_khr_int64_base_atomics / _extended_atomics); both return the old value */
#define TMD_ATOMIC_ADD64(p, v) atom_add((volatile GLOBAL_AS ulong *)(p), (ulong)(v))
#define TMD_ATOMIC_MAX64(p, v) atom_max((volatile GLOBAL_AS ulong *)(p), (ulong)(v))
#define TMD_CLZ64(x) clz((ulong)(x))
#define TMD_POPCOUNT32(x) popcount((uint)(x))
#define TMD_DOUBLE_BITS(x) as_ulong(x)
#define TMD_BITS_DOUBLE(u) as_double((ulong)(u))
#define TMD_FLOAT_BITS(x) as_uint(x)
#define TMD_BITS_FLOAT(u) as_float(u)

#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)

#define TMD_CUDA 1

#define KERNEL_FQ extern "C" __global__
/* A register cap for one kernel, where occupancy pays more than the spills (CUDA 12.4+). */
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#define KERNEL_MAX_REGISTERS(n) __maxnreg__(n)
#else
#define KERNEL_MAX_REGISTERS(n)
#endif
#define GLOBAL_AS
#define CONSTANT_AS __constant__
#define DEVICE_FN static __device__ __forceinline__
#define DEVICE_FN_NOINLINE static __device__ __noinline__
#define GLOBAL_ID0 ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)
#define GLOBAL_SIZE0 ((unsigned long long)gridDim.x * blockDim.x)
#define LOCAL_ID0 ((unsigned int)threadIdx.x)
#define GROUP_ID0 ((unsigned long long)blockIdx.x)
#define LOCAL_SIZE0 ((unsigned int)blockDim.x)
#define LOCAL_ARRAY(type, name, len) __shared__ type name[len]
#define LOCAL_AS
#define LOCAL_BARRIER() __syncthreads()

typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef int i32;

#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#define TMD_FMA(a, b, c) fma((a), (b), (c))
#define TMD_MUL_HI64(a, b) __umul64hi((u64)(a), (u64)(b))
#define TMD_ATOMIC_INC(p) atomicAdd((p), 1u)
#define TMD_ATOMIC_ADD64(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define TMD_ATOMIC_MAX64(p, v) atomicMax((unsigned long long *)(p), (unsigned long long)(v))
#define TMD_CLZ64(x) __clzll((long long)(x))
#define TMD_POPCOUNT32(x) __popc((unsigned int)(x))
#define TMD_DOUBLE_BITS(x) ((u64)__double_as_longlong(x))
#define TMD_BITS_DOUBLE(u) __longlong_as_double((long long)(u))
#define TMD_FLOAT_BITS(x) ((u32)__float_as_uint(x))
#define TMD_BITS_FLOAT(u) __uint_as_float(u)

#else
#error "vendor.h: compile as OpenCL C or CUDA C (NVRTC)"
#endif

/* The layout constants the host passes as -D options (tmd_kernels::layout::defines). */
#ifndef MAX_DEGREE
#error "vendor.h: MAX_DEGREE missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef STATS_WORDS
#error "vendor.h: STATS_WORDS missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef NMDM_GROUP
#error "vendor.h: NMDM_GROUP missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef DEFER_WORDS
#error "vendor.h: DEFER_WORDS missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef FOLD_GROUP
#error "vendor.h: FOLD_GROUP missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef FOLD_MAX_GROUPS
#error "vendor.h: FOLD_MAX_GROUPS missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef SCAN_GROUP
#error "vendor.h: SCAN_GROUP missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef SCAN_PER_ITEM
#error "vendor.h: SCAN_PER_ITEM missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef WARP_WIDTH
#error "vendor.h: WARP_WIDTH missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef WARP_NMDM_GROUP
#error "vendor.h: WARP_NMDM_GROUP missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef WARP_NMDM_WORDS
#error "vendor.h: WARP_NMDM_WORDS missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef CRUNCH_HISTOGRAM_OFFSET
#error "vendor.h: CRUNCH_HISTOGRAM_OFFSET missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef CRUNCH_HISTOGRAM_BINS
#error "vendor.h: CRUNCH_HISTOGRAM_BINS missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef LB_LEFEVRE
#error "vendor.h: LB_LEFEVRE missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef LB_LEFEVRE_SWAP
#error "vendor.h: LB_LEFEVRE_SWAP missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef LB_REGULAR
#error "vendor.h: LB_REGULAR missing (build with tmd_kernels::layout::defines)"
#endif
#ifndef LB_REGULAR_UNROLLED
#error "vendor.h: LB_REGULAR_UNROLLED missing (build with tmd_kernels::layout::defines)"
#endif

/* a + b + carry_in, returning the sum and setting *carry_out (0 or 1). */
DEVICE_FN u64 tmd_add_carry(u64 a, u64 b, u32 carry_in, u32 *carry_out) {
    u64 s = a + b;
    u32 c1 = s < a;
    u64 t = s + carry_in;
    u32 c2 = t < s;
    *carry_out = c1 | c2;
    return t;
}

#endif /* TMD_VENDOR_H */

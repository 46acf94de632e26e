// Decimal conversions of dd_real (host only): correctly rounded parsing and printing.
//
// The rules are specified in docs/dd.md ("Decimal conversion"). Exact big-integer arithmetic
// (GMP) decides every rounding of parse_dd. Printing uses exact fixed-width integer arithmetic
// (hi + lo = M 2^e, N = round(M 10^s 2^-e) with the remainder kept), and MPFR for what that
// does not cover (|x| >= 10^digits, more than ~2400 bits of work); the same characters either way
// (tests/core/test_dd_io.cpp compares them with the MPFR-only printing).
#pragma once

#include <string>
#include <string_view>

#include "core/dd_real.hpp"

namespace eigsolve {

/// Parses a decimal number into the dd pair nearest to its exact value x:
/// hi = RN(x) (round to nearest double, ties to even, subnormals included) and
/// lo = RN(x - hi), so exact dyadic strings come back exactly. A zero remainder gives lo = +0.
///
/// Grammar (the whole of s, no surrounding white space): [+|-] mantissa [exponent] where
/// mantissa is digits, digits '.', '.' digits or digits '.' digits (at least one digit), and
/// exponent is one of e E d D, an optional sign, and at least one digit. Any number of
/// significant digits is accepted.
/// Returns false (out unchanged) for a malformed string, for "inf"/"nan"/hexadecimal input
/// (rejected, not parsed), and when |x| rounds to a double beyond DBL_MAX (overflow).
/// Values below half the smallest subnormal give a zero of the given sign (underflow).
/// Fast path (same result, proven in docs/dd.md): <= 2^53 significand and |exponent| <= 22.
bool parse_dd(std::string_view s, dd_real& out);

/// The exact value hi + lo, correctly rounded (to nearest, ties to even) to sig_digits
/// significant decimal digits, in scientific notation "[-]d.ddd...e[+|-]XX" (at least two
/// exponent digits, like printf's %e); "0.000...e+00" (with '-' for -0), "inf", "-inf", "nan".
/// Precondition: 1 <= sig_digits <= 1100 (UsageError otherwise).
/// parse_dd(dd_to_string(x, 34)) == x is guaranteed when |x.lo| >= 2^-55 |x.hi| and x is not
/// a tie (|x.lo| != ulp(x.hi)/2); in general a fixed digit count cannot round-trip every dd
/// (e.g. 1 + 2^-1000 is a normalized dd): use dd_to_string_roundtrip for that.
std::string dd_to_string(const dd_real& x, int sig_digits = 34);

/// The shortest dd_to_string(x, n) with n >= 33 for which parse_dd gives x back (hi bitwise,
/// lo equal as a number); n is at most the length of the exact decimal expansion, so this
/// always succeeds for finite normalized x. Non-finite x: as dd_to_string.
/// (The lengths tried are 33..40, then 80, 160, ... 1100.) For a normalized x away from ties and
/// from the subnormal range, the exact error of the digits decides whether parse_dd would give x
/// back without printing or parsing; every other case prints and parses.
std::string dd_to_string_roundtrip(const dd_real& x);

}  // namespace eigsolve

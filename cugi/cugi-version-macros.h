/* cugi-version-macros.h: symbol visibility, availability and deprecation.
 *
 * Every public declaration says in which version it appeared
 * (CUGI_AVAILABLE_IN_x_y) and, once it is deprecated, since when
 * (CUGI_DEPRECATED_IN_x_y or CUGI_DEPRECATED_IN_x_y_FOR). A program that
 * defines CUGI_VERSION_MIN_REQUIRED is warned about what was deprecated up
 * to that version; one that defines CUGI_VERSION_MAX_ALLOWED is warned when it
 * uses what appeared after it. Both default to the current version. */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

#ifndef CUGI_MAJOR_VERSION
#error "Include cugi-version.h rather than cugi-version-macros.h."
#endif

#include <glib.h>

/* Only symbols marked so leave libcugi: the library is built with
 * -fvisibility=hidden. */
#if defined(CUGI_COMPILATION)
# define _CUGI_EXTERN __attribute__((visibility ("default"))) extern
#else
# define _CUGI_EXTERN extern
#endif

/**
 * CUGI_ENCODE_VERSION:
 * @major: a major version
 * @minor: a minor version
 *
 * Encodes a major and a minor version as one number, the form
 * %CUGI_VERSION_MIN_REQUIRED and %CUGI_VERSION_MAX_ALLOWED take; later
 * versions give larger numbers.
 *
 * Since: 0.1
 */
#define CUGI_ENCODE_VERSION(major,minor) ((major) << 16 | (minor) << 8)

/**
 * CUGI_VERSION_0_1:
 *
 * cugi 0.1, encoded for %CUGI_VERSION_MIN_REQUIRED and
 * %CUGI_VERSION_MAX_ALLOWED.
 *
 * Since: 0.1
 */
#define CUGI_VERSION_0_1 (CUGI_ENCODE_VERSION (0, 1))

/* The version these headers belong to, without its micro version: an API
 * appears or is deprecated only in a new minor version. */
#define CUGI_VERSION_CUR_STABLE (CUGI_ENCODE_VERSION (CUGI_MAJOR_VERSION, CUGI_MINOR_VERSION))

/**
 * CUGI_VERSION_MIN_REQUIRED:
 *
 * Define it, before including `<cugi/cugi.h>`, to the oldest cugi version a
 * program supports, e.g. `-DCUGI_VERSION_MIN_REQUIRED=CUGI_VERSION_0_1`:
 * the compiler then warns where the program uses what was deprecated in that
 * version or an older one, and keeps quiet about later deprecations, whose
 * replacements that version lacks. Defaults to the current version.
 *
 * Since: 0.1
 */
#ifndef CUGI_VERSION_MIN_REQUIRED
# define CUGI_VERSION_MIN_REQUIRED (CUGI_VERSION_CUR_STABLE)
#endif

/**
 * CUGI_VERSION_MAX_ALLOWED:
 *
 * Define it, before including `<cugi/cugi.h>`, to the newest cugi version a
 * program may use the API of, e.g.
 * `-DCUGI_VERSION_MAX_ALLOWED=CUGI_VERSION_0_1`: the compiler then warns
 * where the program uses what appeared in a later version. Defaults to the
 * current version.
 *
 * Since: 0.1
 */
#ifndef CUGI_VERSION_MAX_ALLOWED
# define CUGI_VERSION_MAX_ALLOWED (CUGI_VERSION_CUR_STABLE)
#endif

/* Unlike GLib's, a bound of 0 is not taken as unset: it is version 0.0,
 * older than anything cugi has. */
#if CUGI_VERSION_MIN_REQUIRED > CUGI_VERSION_CUR_STABLE
# error "CUGI_VERSION_MIN_REQUIRED must not be newer than the cugi headers in use"
#endif
#if CUGI_VERSION_MAX_ALLOWED < CUGI_VERSION_MIN_REQUIRED
# error "CUGI_VERSION_MAX_ALLOWED must not be older than CUGI_VERSION_MIN_REQUIRED"
#endif

/**
 * CUGI_AVAILABLE_IN_ALL:
 *
 * Marks a public declaration that has no version to check against. Every
 * declaration of cugi itself says when it appeared instead, with
 * `CUGI_AVAILABLE_IN_x_y`.
 *
 * Since: 0.1
 */
#define CUGI_AVAILABLE_IN_ALL _CUGI_EXTERN

/* Defining CUGI_DISABLE_DEPRECATION_WARNINGS silences both kinds of warning,
 * as GLIB_DISABLE_DEPRECATION_WARNINGS does for GLib. */
#ifdef CUGI_DISABLE_DEPRECATION_WARNINGS
# define CUGI_DEPRECATED _CUGI_EXTERN
# define CUGI_DEPRECATED_FOR(f) _CUGI_EXTERN
# define CUGI_UNAVAILABLE(maj,min) _CUGI_EXTERN
#else
/**
 * CUGI_DEPRECATED:
 *
 * Marks a deprecated declaration: its users get a compiler warning.
 *
 * Since: 0.1
 */
# define CUGI_DEPRECATED G_DEPRECATED _CUGI_EXTERN
/**
 * CUGI_DEPRECATED_FOR:
 * @f: the replacement
 *
 * Marks a deprecated declaration: its users get a compiler warning naming
 * the replacement @f.
 *
 * Since: 0.1
 */
# define CUGI_DEPRECATED_FOR(f) G_DEPRECATED_FOR (f) _CUGI_EXTERN
/**
 * CUGI_UNAVAILABLE:
 * @maj: the major version the declaration appeared in
 * @min: the minor version the declaration appeared in
 *
 * Marks a declaration that appeared after %CUGI_VERSION_MAX_ALLOWED: its
 * users get a compiler warning naming the version it appeared in.
 *
 * Since: 0.1
 */
# define CUGI_UNAVAILABLE(maj,min) G_UNAVAILABLE (maj, min) _CUGI_EXTERN
#endif

/* One block per minor version, for each new one. A declaration that appeared
 * after CUGI_VERSION_MAX_ALLOWED is unavailable; one deprecated in a version
 * up to CUGI_VERSION_MIN_REQUIRED is deprecated. */

/**
 * CUGI_AVAILABLE_IN_0_1:
 *
 * Marks a declaration that appeared in cugi 0.1.
 *
 * Since: 0.1
 */
#if CUGI_VERSION_MAX_ALLOWED < CUGI_VERSION_0_1
# define CUGI_AVAILABLE_IN_0_1 CUGI_UNAVAILABLE (0, 1)
#else
# define CUGI_AVAILABLE_IN_0_1 _CUGI_EXTERN
#endif

/**
 * CUGI_DEPRECATED_IN_0_1:
 *
 * Marks a declaration deprecated in cugi 0.1.
 *
 * Since: 0.1
 */
/**
 * CUGI_DEPRECATED_IN_0_1_FOR:
 * @f: the replacement
 *
 * Marks a declaration deprecated in cugi 0.1 in favour of @f.
 *
 * Since: 0.1
 */
#if CUGI_VERSION_MIN_REQUIRED >= CUGI_VERSION_0_1
# define CUGI_DEPRECATED_IN_0_1 CUGI_DEPRECATED
# define CUGI_DEPRECATED_IN_0_1_FOR(f) CUGI_DEPRECATED_FOR (f)
#else
# define CUGI_DEPRECATED_IN_0_1 _CUGI_EXTERN
# define CUGI_DEPRECATED_IN_0_1_FOR(f) _CUGI_EXTERN
#endif

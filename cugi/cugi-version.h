/* cugi-version.h: symbol visibility */
#pragma once

#if !defined(__CUGI_INSIDE__) && !defined(CUGI_COMPILATION)
#error "Only <cugi/cugi.h> can be included directly."
#endif

/* Only symbols marked so leave libcugi: the library is built with
 * -fvisibility=hidden. */
#if defined(CUGI_COMPILATION)
# define CUGI_AVAILABLE_IN_ALL __attribute__((visibility ("default"))) extern
#else
# define CUGI_AVAILABLE_IN_ALL extern
#endif

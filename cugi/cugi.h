/* cugi.h: NVIDIA GPUs for GLib, GObject and every GI language */
#pragma once

#define __CUGI_INSIDE__

#include "cugi-version.h"
#include "cugi-types.h"
#include "cugi-error.h"
#include "cugi-enums.h"
#include "cugi-device-attribute.h"
#include "cugi-init.h"
#include "cugi-device.h"
#include "cugi-context.h"
#include "cugi-stream.h"
#include "cugi-event.h"
#include "cugi-buffer.h"
#include "cugi-host-buffer.h"
#include "cugi-memory-block.h"
#include "cugi-memory-pool.h"
#include "cugi-host-memory-pool.h"
#include "cugi-array.h"
#include "cugi-texture.h"
#include "cugi-surface.h"
#include "cugi-stream-ordered-pool.h"
#include "cugi-program.h"
#include "cugi-diagnostic.h"
#include "cugi-jit-options.h"
#include "cugi-module.h"
#include "cugi-linker.h"
#include "cugi-kernel.h"
#include "cugi-launch-config.h"
#include "cugi-kernel-args.h"
#include "cugi-occupancy.h"
#include "cugi-profiler.h"
#include "cugi-graph.h"
#include "cugi-graph-exec.h"

#undef __CUGI_INSIDE__

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * What a module plugs into the core: {@link dev.slipstream.spi.SharedBlockStore}, the store behind the
 * shared block tier; and what the core hands it: {@link dev.slipstream.spi.HeapAllowance}, where the heap
 * its client allocates outside Slipstream's buffers is counted against {@code memory.max}.
 */
package dev.slipstream.spi;

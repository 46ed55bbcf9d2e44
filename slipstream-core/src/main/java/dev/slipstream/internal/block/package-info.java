/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Blocks and the memory they live in. {@link dev.slipstream.internal.block.BufferPool} holds every
 * block buffer of the JVM (or of an isolated client) under one budget and decides who gets memory:
 * prefetch only when it is free, a waiting reader also by taking back an idle block. What it holds idle
 * (free buffers, and {@link dev.slipstream.internal.block.KeptBuffers}, the memory cache) it refers to
 * softly ({@link dev.slipstream.internal.block.IdleBuffer}), so the collector gives it to the engine's
 * heap before the JVM would run out; what a read uses is held strongly. Heap a shared tier's client
 * allocates outside the buffers is counted in the same budget while its request lasts ({@link
 * dev.slipstream.internal.block.CountedHeap}).
 * {@link dev.slipstream.internal.block.Block} is one reference-counted block; whoever drops the last
 * reference returns its buffer.
 */
package dev.slipstream.internal.block;

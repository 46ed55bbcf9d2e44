/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Blocks and the memory they live in. {@link dev.slipstream.internal.block.BufferPool} holds every
 * block buffer of the JVM (or of an isolated client) under one budget and decides who gets memory:
 * prefetch only when it is free, a waiting reader also by taking back an idle block.
 * {@link dev.slipstream.internal.block.Block} is one reference-counted block; whoever drops the last
 * reference returns its buffer.
 */
package dev.slipstream.internal.block;

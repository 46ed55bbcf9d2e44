/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The bottom floor: what every other floor, and the public values, may use, and which uses nothing of
 * Slipstream. {@link dev.slipstream.internal.util.ETag} is one ETag however a server or a caller spelled
 * it; {@link dev.slipstream.internal.util.AccessGate} is what holds bytes kept outside S3 until S3 has
 * answered the open (made by the fetch floor, passed through by the tiers and the disk cache, which
 * thereby need not know each other); {@link dev.slipstream.internal.util.DaemonThreads} names the
 * threads Slipstream starts. A type belongs here only if two floors that must not know each other
 * both need it (docs/architecture.md, "Floors").
 */
package dev.slipstream.internal.util;

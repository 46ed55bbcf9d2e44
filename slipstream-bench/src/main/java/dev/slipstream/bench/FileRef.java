/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

/**
 * An object as a task is handed it: key, length and ETag, and the reader's own description of it (a
 * Hadoop {@code FileStatus}, or null for the plain API). Opening it needs no HEAD request.
 */
record FileRef(String key, long length, String etag, Object handle) {}

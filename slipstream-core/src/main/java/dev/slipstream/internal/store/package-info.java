/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The object store: HEAD, ranged GET and one page of LIST, with failures translated to the types the
 * rest of the read path and its callers rely on (404 to FileNotFoundException, 403 to
 * AccessDeniedException, 412 to ObjectChangedException, transient ones to TransientStoreException with
 * their cause). The S3 implementation uses the AWS SDK for Java v2 with its own retries switched off,
 * and the client it builds keeps the S3 endpoint rules' answers per bucket ({@code KnownEndpoints},
 * {@code KnownAuthSchemes}) rather than running them on every request; a caller's scope (the Hadoop
 * FileSystem's S3A audit span) can be entered around each request ({@code ScopedObjectStore}), and a
 * client's SSE-C key is added to every GET and HEAD in one place ({@code SseCustomerKey}), and a
 * bucket's requests are sent to its access point in one place ({@code S3ObjectStore}), the object
 * keeping its own bucket everywhere else. A
 * GET's response comes back as the server sent it (status, Content-Range, ETag, Last-Modified), for the
 * fetcher to check (the read path's own client parses a Last-Modified once per value, {@code
 * LastModifiedHeader}, not the SDK on every response); ETags come as {@link dev.slipstream.internal.util.ETag}, the one place they are
 * quoted and compared. The store never retries; {@link dev.slipstream.internal.store.Retrier} is the one
 * retry loop its callers (reads, HEADs, listings) run their requests through, with the
 * {@link dev.slipstream.internal.store.Backoff} of the client's settings.
 *
 * <p>The floor under the read path's fetcher ({@code internal.fetch}) and under the listings
 * ({@code internal.list}); it knows neither, and uses only blocks, the public values and
 * {@code internal.util} (docs/architecture.md, "Floors").
 */
package dev.slipstream.internal.store;

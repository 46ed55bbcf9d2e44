/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The object store: HEAD and ranged GET, nothing else, with failures translated to the types the rest
 * of the read path and its callers rely on (404 to FileNotFoundException, 403 to AccessDeniedException,
 * 412 to ObjectChangedException, transient ones to TransientStoreException with their cause). The S3
 * implementation uses the AWS SDK for Java v2 with its own retries switched off. A GET's response comes
 * back as the server sent it (status, Content-Range, ETag, Last-Modified), for the fetcher to check.
 * ETags come back as {@link dev.slipstream.internal.util.ETag}, the one place they are quoted and compared. The store
 * never retries; {@link dev.slipstream.internal.store.Retrier} is the one retry loop its callers (reads,
 * HEADs, listings) run their requests through, with the {@link dev.slipstream.internal.store.Backoff} of
 * the client's settings.
 */
package dev.slipstream.internal.store;

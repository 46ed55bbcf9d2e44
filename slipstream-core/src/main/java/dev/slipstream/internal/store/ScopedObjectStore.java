/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * A store whose every request is made inside a scope the caller of the client set: entered on the
 * thread that makes the request, left once the store has its answer (for a GET, the response head; the
 * body is read afterwards). The Hadoop FileSystem activates its S3A audit span this way, so that S3A's
 * auditor sees Slipstream's requests, made on fetch threads S3A never saw, inside a span of the
 * FileSystem rather than outside every span.
 */
final class ScopedObjectStore implements ObjectStore {
  private final ObjectStore store;
  private final Supplier<Runnable> enter;

  ScopedObjectStore(ObjectStore store, Supplier<Runnable> enter) {
    this.store = store;
    this.enter = enter;
  }

  @Override
  public ObjectMetadata head(S3Location location) throws IOException {
    Runnable leave = enter.get();
    try {
      return store.head(location);
    } finally {
      leave.run();
    }
  }

  @Override
  public Body get(S3Location location, long start, long end, Version version)
      throws IOException {
    Runnable leave = enter.get();
    try {
      return store.get(location, start, end, version);
    } finally {
      leave.run();
    }
  }

  @Override
  public ListPage list(ListRequest request) throws IOException {
    Runnable leave = enter.get();
    try {
      return store.list(request);
    } finally {
      leave.run();
    }
  }

  @Override
  public void close() {
    store.close();
  }
}

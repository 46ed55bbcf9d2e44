/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.util.Progressable;
import org.apache.hadoop.util.functional.CallableRaisingIOE;

/**
 * Writes, and when the FileSystem's one {@link Changes#changed} hears of them: when they start, and
 * again when their effect may be seen. For a rename, a delete or a copy that is when the call returns
 * ({@link #around}); other writes take effect after the call that starts them: a created file appears
 * when its stream is closed, a bulk delete's keys go at each {@code bulkDelete}, a multipart upload's
 * object appears when it is completed (S3A's write operations tell it then: {@link CompletingWriteOperations}).
 * Each wrapper here tells {@code changed} at that moment, so that no listing kept from before the write
 * answers after it.
 */
final class ChangesAfterWrites {
  /** The FileSystem's single place that hears of writes. */
  @FunctionalInterface
  interface Changes {
    void changed(Path... paths);
  }

  private ChangesAfterWrites() {}

  /**
   * Runs {@code write} (a rename, a delete, a copy), telling {@code changes} of {@code paths} before it
   * and again once it ends, however it ends: a listing made meanwhile may have seen them as they were.
   */
  static <T> T around(CallableRaisingIOE<T> write, Changes changes, Path... paths) throws IOException {
    changes.changed(paths);
    try {
      return write.apply();
    } finally {
      changes.changed(paths);
    }
  }

  /** S3A's {@code create} of {@code path}: {@code changes} told now, and again at the stream's close. */
  static FSDataOutputStream creating(CallableRaisingIOE<FSDataOutputStream> create, Path path, Changes changes)
      throws IOException {
    changes.changed(path);
    return closing(create.apply(), path, changes);
  }

  /** {@code out} (S3A's stream over its block output stream), telling {@code changes} of {@code path} at close. */
  static FSDataOutputStream closing(FSDataOutputStream out, Path path, Changes changes) {
    // One stream over S3A's own (its FSDataOutputStream counts nothing: S3A counts its writes itself),
    // so capabilities, hflush/hsync, abort and IOStatistics are still those of S3A's stream.
    OutputStream inner = out.getWrappedStream();
    return new FSDataOutputStream(inner, null) {
      @Override
      public void close() throws IOException {
        try {
          super.close();
        } finally {
          changes.changed(path); // the object exists from now
        }
      }
    };
  }

  /** S3A's {@code createFile} builder, whose stream tells {@code changes} of {@code path} at close. */
  static FSDataOutputStreamBuilder<FSDataOutputStream, ?> closing(
      FSDataOutputStreamBuilder<?, ?> s3a, FileSystem fs, Path path, Changes changes) {
    return new Builder(s3a, fs, path, changes);
  }

  /** {@code bulk}, telling {@code changes} of the paths of each page it deletes. */
  static BulkDelete deleting(BulkDelete bulk, Changes changes) {
    return new BulkDelete() {
      @Override
      public int pageSize() {
        return bulk.pageSize();
      }

      @Override
      public Path basePath() {
        return bulk.basePath();
      }

      @Override
      public List<Map.Entry<Path, String>> bulkDelete(Collection<Path> paths) throws IOException {
        Path[] changed = paths.toArray(new Path[0]);
        changes.changed(changed);
        try {
          return bulk.bulkDelete(paths);
        } finally {
          changes.changed(changed); // a listing made meanwhile may have seen them
        }
      }

      @Override
      public IOStatistics getIOStatistics() {
        return bulk.getIOStatistics();
      }

      @Override
      public void close() throws IOException {
        bulk.close();
      }
    };
  }

  /**
   * Passes every setting on to S3A's builder as it is made (its options, flags and checks stay S3A's),
   * then wraps the stream it builds.
   */
  private static final class Builder extends FSDataOutputStreamBuilder<FSDataOutputStream, Builder> {
    private final FSDataOutputStreamBuilder<?, ?> s3a;
    private final Path path;
    private final Changes changes;

    Builder(FSDataOutputStreamBuilder<?, ?> s3a, FileSystem fs, Path path, Changes changes) {
      super(fs, path);
      this.s3a = s3a;
      this.path = path;
      this.changes = changes;
    }

    @Override
    public Builder getThisBuilder() {
      return this;
    }

    @Override
    public FSDataOutputStream build() throws IOException {
      return closing(s3a.build(), path, changes);
    }

    @Override
    public Builder permission(FsPermission perm) {
      s3a.permission(perm);
      return this;
    }

    @Override
    public Builder bufferSize(int size) {
      s3a.bufferSize(size);
      return this;
    }

    @Override
    public Builder replication(short replica) {
      s3a.replication(replica);
      return this;
    }

    @Override
    public Builder blockSize(long size) {
      s3a.blockSize(size);
      return this;
    }

    @Override
    public Builder recursive() {
      s3a.recursive();
      return this;
    }

    @Override
    public Builder progress(Progressable prog) {
      s3a.progress(prog);
      return this;
    }

    @Override
    public Builder create() {
      s3a.create();
      return this;
    }

    @Override
    public Builder overwrite(boolean overwrite) {
      s3a.overwrite(overwrite);
      return this;
    }

    @Override
    public Builder append() {
      s3a.append();
      return this;
    }

    @Override
    public Builder checksumOpt(Options.ChecksumOpt opt) {
      s3a.checksumOpt(opt);
      return this;
    }

    @Override
    public Builder opt(String key, String value) {
      s3a.opt(key, value);
      return this;
    }

    @Override
    public Builder opt(String key, String... values) {
      s3a.opt(key, values);
      return this;
    }

    @Override
    public Builder optLong(String key, long value) {
      s3a.optLong(key, value);
      return this;
    }

    @Override
    public Builder optDouble(String key, double value) {
      s3a.optDouble(key, value);
      return this;
    }

    @Override
    public Builder must(String key, String value) {
      s3a.must(key, value);
      return this;
    }

    @Override
    public Builder must(String key, String... values) {
      s3a.must(key, values);
      return this;
    }

    @Override
    public Builder mustLong(String key, long value) {
      s3a.mustLong(key, value);
      return this;
    }

    @Override
    public Builder mustDouble(String key, double value) {
      s3a.mustDouble(key, value);
      return this;
    }
  }
}

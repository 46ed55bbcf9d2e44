/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.io.InputFile;

/**
 * One reader during one measured run: a fresh Hadoop FileSystem instance or a fresh Slipstream client,
 * closed at the end of the run, so that no cache or connection carries over from one run to the next.
 */
interface ReadSession extends Closeable {
  /** What a job's driver hands its task: the object's length and ETag (a HEAD; done before the timer starts). */
  FileRef stat(String key) throws IOException;

  /** The objects directly under {@code prefix} (ending in "/"), by key: LIST requests. */
  List<FileRef> list(String prefix) throws IOException;

  /**
   * The files directly in each of {@code directories} (keys ending in "/"), as a job's split computation
   * lists its input directories: Hadoop's {@code listStatus(Path[])}, which S3A serves one directory
   * after another and Slipstream with one merge-join listing.
   */
  List<FileRef> listDirectories(List<String> directories) throws IOException;

  /**
   * The files of an input glob as FileInputFormat lists them with its default single thread: Hadoop's
   * {@code globStatus(glob, hiddenFileFilter)}, then {@code listLocatedStatus(dir)} of every directory
   * matched, files whose names start with "_" or "." left out. Null where the reader has no FileSystem.
   */
  default List<FileRef> listInputGlob(String glob) throws IOException {
    return null;
  }

  /**
   * The files directly in each of {@code directories}, one {@code listStatus(dir)} call each, in this
   * order, on this thread. Null where the reader has no FileSystem.
   */
  default List<FileRef> listEachDirectory(List<String> directories) throws IOException {
    return null;
  }

  /** Every file under {@code prefix} (ending in "/"): Hadoop's {@code listFiles(path, true)}. */
  List<FileRef> listRecursive(String prefix) throws IOException;

  /**
   * The task will now open {@code files} one after another, in this order. Readers that can use it
   * (Slipstream's open-ahead) fetch the first bytes of the next files ahead; the others ignore it.
   */
  default void readingInOrder(List<FileRef> files) throws IOException {}

  /** Opens an object whose length and ETag are known, as a task does: no HEAD request. */
  ObjectStream open(FileRef file) throws IOException;

  /**
   * Opens an object whose length and ETag are known to read it whole, declaring so as Hadoop's {@code
   * FileUtil.copy} and the shell's {@code -cp} and {@code -get} do (read policy {@code whole-file}).
   */
  ObjectStream openWhole(FileRef file) throws IOException;

  /**
   * Opens an object by its key alone, as plain record readers call {@code FileSystem.open(path)}: no
   * status passed. Null where the reader has no FileSystem.
   */
  default ObjectStream openPath(String key) throws IOException {
    return null;
  }

  /** The Hadoop FileSystem this reader reads through (orc-core reads through one), or null where it has none. */
  default org.apache.hadoop.fs.FileSystem hadoopFileSystem() {
    return null;
  }

  /** The object as Parquet reads it. */
  InputFile parquetFile(FileRef file) throws IOException;

  /** Parquet's read options for this reader (for Hadoop: from the job configuration, as Spark does). */
  ParquetReadOptions parquetOptions();

  /**
   * Bytes of block buffers this reader's memory pool holds (Slipstream's {@code memory.max} bounds them): in
   * use, free or kept by its memory cache. 0 (the default) for readers without such a pool.
   */
  default long memoryPoolBytes() {
    return 0;
  }

  /**
   * Slipstream's counters of this session's client, by metric name without prefix ({@code shared_hits},
   * {@code shared_bytes_read}, ...), also after {@link #close}; empty for readers that are not Slipstream.
   */
  default java.util.Map<String, Long> slipstreamCounters() {
    return java.util.Map.of();
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.hadoop.ChangesAfterWrites.Changes;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3ADataBlocks;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.WriteOperationHelper;
import org.apache.hadoop.fs.s3a.impl.PutObjectOptions;
import org.apache.hadoop.fs.statistics.DurationTrackerFactory;
import org.apache.hadoop.fs.store.audit.AuditSpan;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * S3A's write operations, telling the FileSystem's {@link Changes#changed} of the object each multipart
 * upload completes, each object it puts and each commit it reverts: before the call, and again once
 * it has ended.
 *
 * <p>Why here: on Hadoop 3.4.1 and 3.5.0 every {@code WriteOperationHelper} S3A uses is made by
 * {@code S3AFileSystem.createWriteOperationHelper(span)} ({@code getWriteOperationHelper()} calls it too),
 * and every multipart upload ends in its {@code commitUpload} or {@code completeMPUwithRetries}, the only
 * two callers of the completion. That is the magic and staging committers' {@code CommitOperations} (the
 * directory and partitioned committers are staging committers), the magic committer's
 * {@code MagicCommitIntegration}, the block output stream of {@code create} and {@code createFile}, and
 * the {@code MultipartUploader}. A single PUT goes through the helper's {@code putObject} (a small file's
 * close, the magic committer's markers and pending files) and a committer's undo through
 * {@code revertCommit}: both tell it here too. (A created file's stream also tells it at close:
 * {@link ChangesAfterWrites}.)
 *
 * <p>How: the two completions and {@code uploadPart} are passed to S3A's own helper for the same span,
 * since only they use its private callbacks into the store (so they keep S3A's retries, statistics and
 * auditing, and on Hadoop 3.4.1 its marker clean-up after a completion). Every other call is this
 * helper's, built with the arguments S3A builds its own with: the same span, statistics and request
 * factory. Its callbacks are never reached, and say so if they are.
 */
final class CompletingWriteOperations extends WriteOperationHelper {
  private final WriteOperationHelper s3a;
  private final Function<String, Path> keyToPath;
  private final Changes changes;

  /** {@code s3a}: S3A's own helper for {@code span}, from {@code fs.createWriteOperationHelper(span)}. */
  CompletingWriteOperations(S3AFileSystem fs, AuditSpan span, WriteOperationHelper s3a, Changes changes) {
    super(fs, fs.getConf(), fs.createStoreContext().getInstrumentation(), fs.getAuditSpanSource(), span,
        new Unused());
    this.s3a = s3a;
    this.keyToPath = fs::keyToQualifiedPath;
    this.changes = changes;
  }

  @Override
  public CompleteMultipartUploadResponse commitUpload(String destKey, String uploadId, List<CompletedPart> partETags,
      long length) throws IOException {
    return ChangesAfterWrites.around(() -> s3a.commitUpload(destKey, uploadId, partETags, length), changes,
        keyToPath.apply(destKey));
  }

  @Override
  public CompleteMultipartUploadResponse completeMPUwithRetries(String destKey, String uploadId,
      List<CompletedPart> partETags, long length, AtomicInteger errorCount, PutObjectOptions putOptions)
      throws IOException {
    return ChangesAfterWrites.around(
        () -> s3a.completeMPUwithRetries(destKey, uploadId, partETags, length, errorCount, putOptions), changes,
        keyToPath.apply(destKey));
  }

  /** A single PUT: a small file's close, the magic committer's markers and pending files. */
  @Override
  public PutObjectResponse putObject(PutObjectRequest request, PutObjectOptions putOptions,
      S3ADataBlocks.BlockUploadData uploadData, DurationTrackerFactory durationTrackerFactory) throws IOException {
    return ChangesAfterWrites.around(() -> super.putObject(request, putOptions, uploadData, durationTrackerFactory),
        changes, keyToPath.apply(request.key()));
  }

  /** Deletes what a commit wrote (a committer's undo). */
  @Override
  public void revertCommit(String destKey) throws IOException {
    ChangesAfterWrites.around(() -> {
      super.revertCommit(destKey);
      return null;
    }, changes, keyToPath.apply(destKey));
  }

  @Override
  public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body,
      DurationTrackerFactory durationTrackerFactory) throws IOException {
    return s3a.uploadPart(request, body, durationTrackerFactory);
  }

  @Override
  public String toString() {
    return "Slipstream's " + s3a;
  }

  /** The callbacks of the helper's own state: the calls that would use them go to S3A's helper. */
  private static final class Unused implements WriteOperationHelperCallbacks {
    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
      throw new IllegalStateException("completions go through S3A's own write operations");
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body,
        DurationTrackerFactory durationTrackerFactory) {
      throw new IllegalStateException("part uploads go through S3A's own write operations");
    }

    /** Hadoop 3.4's callback after a completion (no {@code @Override}: Hadoop 3.5 has none). */
    public void finishedWrite(String key, long length, PutObjectOptions putOptions) {
      throw new IllegalStateException("completions go through S3A's own write operations");
    }
  }
}

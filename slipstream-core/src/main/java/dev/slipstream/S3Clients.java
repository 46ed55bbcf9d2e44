/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.store.KnownRules;
import dev.slipstream.internal.store.LastModifiedHeader;
import dev.slipstream.internal.store.S3ClientFactory;
import dev.slipstream.internal.store.S3ObjectStore;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The S3 client Slipstream builds for itself, for a caller that wants the same one: to share it with
 * a {@link Slipstream} client ({@link Slipstream.Builder#s3Client}) and make requests of its own on
 * it, or to compare Slipstream with plain SDK calls over identical connections. This class owns only
 * the public way in; how the client is set up stays with Slipstream's store and may change with it.
 */
public final class S3Clients {
  private S3Clients() {}

  /**
   * A new S3 client set up from {@code config} as {@link Slipstream#create} sets up its own for HEAD and
   * LIST (its GETs go through a second one, without a socket timeout: the stall watchdog watches their
   * bodies, and the connect and stall timeouts bound each attempt until the response begins):
   * {@code endpoint}, {@code region}, {@code path.style.access} and the credential keys (the SDK's
   * default region and credential chains where unset); the Apache HTTP client with
   * {@code 2 * fetch.threads + 8} connections, {@code read.stall.timeout} as its socket timeout and
   * {@code connect.timeout} to connect; the SDK's own retries off (Slipstream retries per block, so a
   * request made directly on this client is not retried); checksums only where S3 requires them; the
   * S3 endpoint rules' answer for a bucket (its endpoint and auth scheme) worked out once and reused.
   *
   * <p>The caller owns the client and closes it; a {@link Slipstream} given it does not.
   */
  public static S3Client create(SlipstreamConfig config) {
    return S3ClientFactory.create(config);
  }

  /**
   * Makes the client {@code builder} builds work out the S3 endpoint rules' answer for a bucket (its
   * endpoint and auth scheme) once and reuse it, as Slipstream's own clients do, instead of running the
   * rules on every request; every setting the rules read (an access point ARN, FIPS, a custom endpoint)
   * still decides as before. For a client set up from another's settings, as the Hadoop FileSystem's.
   */
  public static void keepRulesAnswers(S3BaseClientBuilder<?, ?> builder) {
    KnownRules.keepAnswers(builder, true, true);
  }

  /**
   * An interceptor for a client that {@link Slipstream.Builder#readsClient} is given, added after its
   * others: it moves a GET response's {@code Last-Modified} out of the SDK's reach before the response is
   * unmarshalled, and Slipstream parses it once per distinct value instead of the SDK on every response
   * (7% of a GET's CPU in the SDK). Only for a client whose other interceptors never read a response's
   * Last-Modified, as they would find none; a value that is no date still fails the GET.
   */
  public static software.amazon.awssdk.core.interceptor.ExecutionInterceptor lastModifiedOncePerValue() {
    return new LastModifiedHeader();
  }

  /**
   * Whether S3's answer {@code head} to a HEAD of an object proves that the same credentials may GET its
   * bytes, so that bytes a cache holds of that version may be served on it. S3 asks the same
   * {@code s3:GetObject} permission of both, with one exception: an object encrypted under a KMS key
   * ({@code x-amz-server-side-encryption: aws:kms} or {@code aws:kms:dsse}) needs {@code kms:Decrypt}
   * for a GET and not for a HEAD. A principal allowed the HEAD but not the key must not read what
   * another principal cached; for such an object the proof is a GET (a 1-byte one where nothing else is
   * to be fetched: it costs what a HEAD costs).
   */
  public static boolean headProvesRead(HeadObjectResponse head) {
    return S3ObjectStore.headProvesRead(head);
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.net.URI;

/**
 * Where readers read from: the link shaper's endpoint in front of the S3 server, and the bucket. The
 * credentials are the test server's ({@link dev.slipstream.testkit.EmbeddedS3Server#ACCESS_KEY}).
 */
record Target(URI endpoint, String bucket) {}

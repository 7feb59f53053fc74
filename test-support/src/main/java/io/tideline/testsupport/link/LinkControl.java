package io.tideline.testsupport.link;

/**
 * One directed link of a test cluster that a test can cut and heal. The semantics every implementation keeps
 * are a real partition's: after {@link #cut()} returns, nothing sent over the link reaches the other side and
 * no answer comes back, including answers to requests that were in flight when it was cut (they are lost and
 * fail or time out on the sender's side); {@link #heal()} lets new requests through again. {@link RequestLink} is
 * the in-process implementation; cluster-tests' TCP {@code LinkProxy} has the same two operations over real
 * sockets (a call in flight over its cut ends at the caller's deadline).
 */
public interface LinkControl {
    void cut();

    void heal();
}

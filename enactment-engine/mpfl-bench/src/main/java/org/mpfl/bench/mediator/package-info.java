/**
 * The service side of the engine's mediator mode (BPEL-style enactment): the {@code step} operation
 * of the {@value org.mpfl.bench.mediator.StepWire#SERVICE} service in every service host runs one
 * {@link org.mpfl.runtime.api.Activity} once with the inputs the caller sends and answers its outputs
 * (SOAP 1.2 request-response, arrays as MTOM attachments), and the client the engine calls it with.
 * Nothing is kept between calls: whatever a service needs in the next iteration travels through the
 * mediator, which is the point of the comparison with direct messaging.
 */
package org.mpfl.bench.mediator;

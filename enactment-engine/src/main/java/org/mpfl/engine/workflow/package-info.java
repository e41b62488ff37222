/**
 * Workflows as the engine sees them: the workflow use cases ({@link org.mpfl.engine.workflow.WorkflowService}:
 * store and read workflows, start a run of a plan, document or stored workflow), and
 * {@link org.mpfl.engine.workflow.Compilers}, which finds the compiler through mpfl-ir's
 * {@link org.mpfl.ir.spi.WorkflowCompilerProvider} (the compiler proper is on the run-time class
 * path only). Plans are the compiler's {@link org.mpfl.ir.plan.DeploymentPlan}, read with
 * {@link org.mpfl.ir.plan.PlanJson}.
 */
package org.mpfl.engine.workflow;

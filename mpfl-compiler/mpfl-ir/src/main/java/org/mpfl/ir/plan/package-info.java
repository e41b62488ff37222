/** The deployment plan ({@code plan.json}) and its JSON form. */
package org.mpfl.ir.plan;

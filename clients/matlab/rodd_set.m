function r = rodd_set(c, id, inputs)
%RODD_SET  Sets inputs to constants at one simulated time: rodd_set(c, id, struct('LM1', 0.2,
%   'TM', 500)) (N for cables, Pa for transverse muscles, a scale for loads). r.status is
%   'applied' (with r.t) or 'queued'.
  r = rodd_request(c, 'PATCH', ['/v1/sessions/' id '/actuators'], inputs);
end

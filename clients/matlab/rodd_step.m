function [f, s] = rodd_step(c, id, by, inputs)
%RODD_STEP  Lockstep for a controller that owns the clock: sets inputs (a struct, optional),
%   advances a paused (or created) session by BY simulated seconds and returns the frame
%   there (as rodd_frame does) and the step's state (s.state, s.t, s.applied_at), in one
%   request.   f = rodd_step(c, id, 0.01, struct('cable', u));
  body = struct('by', by);
  if nargin >= 4 && ~isempty(inputs)
    body.inputs = inputs;
  end
  s = rodd_request(c, 'POST', ['/v1/sessions/' id ':step'], body);
  f = s.frame;
  if isfield(f, 'rotation')
    n = size(f.rotation, 1);
    f.rotation = permute(reshape(f.rotation', 3, 3, n), [3 2 1]);
  end
  s = rmfield(s, 'frame');
  if strcmp(s.state, 'failed')
    error('rodd:failed', 'the session failed: %s', s.failure);
  end
end

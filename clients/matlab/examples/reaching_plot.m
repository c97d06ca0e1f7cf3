function r = reaching_plot(url, seconds)
%REACHING_PLOT  Runs the octopus reaching example (Sec. 5.2 of the GVS paper) as fast as the
%   daemon can for `seconds` simulated seconds, saves its recording as reaching.h5 and plots
%   the tip's path and the energies.
  if nargin < 2, seconds = 3.5; end
  here = fileparts(mfilename('fullpath'));
  addpath(fullfile(here, '..'));
  c = rodd_client(url);
  s = rodd_create(c, 'example', 'octopus-reaching', 'pace', 'max', 'until', seconds, 'start', true, ...
                  'recording', struct('rate', 30, 'fields', {{'position', 'energy'}}));
  while strcmp(s.state, 'running')
    pause(0.2);
    s = rodd_session(c, s.id);
  end
  r = rodd_recording(c, s.id, [], [], 'reaching.h5');
  tip = squeeze(r.position(:, end, :));  % frames x 3
  subplot(1, 2, 1); plot(tip(:, 1), tip(:, 3)); axis equal; xlabel('x (m)'); ylabel('z (m)'); title('tip');
  subplot(1, 2, 2); plot(r.t, [r.energy.kinetic, r.energy.elastic]); xlabel('t (s)'); ylabel('J');
  legend('kinetic', 'elastic');
  rodd_delete(c, s.id);
end
